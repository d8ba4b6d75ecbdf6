import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
}

export interface StoredKey {
  key: string;
  size: number;
}

/** Where files live: local disk by default, an S3 bucket in production. Keys are `/`-separated paths. */
export interface Storage {
  readonly driver: 'local' | 's3';
  /** Writes a stream to `key`, replacing any earlier object; resolves once it is durable. */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** Reads `key`; rejects with `StorageNotFound` when it does not exist. */
  get(key: string): Promise<Readable>;
  stat(key: string): Promise<StoredObject | null>;
  delete(key: string): Promise<void>;
  /**
   * Every stored object whose key starts with `prefix` (a folder: '' or ending in `/`), page by
   * page in no particular order (backups copy them all). Objects being written (a local temporary
   * file) are not listed.
   */
  list(prefix?: string): AsyncIterable<StoredKey>;
  /** For readiness checks. */
  ping(): Promise<void>;
  /** Releases the driver's connections (S3 clients); nothing to do for local files. */
  destroy?(): void;
  /**
   * Only on drivers clients can write to directly (S3): a URL that accepts a PUT of the bytes to
   * `key`, with exactly `Content-Type: contentType`, for `expiresIn` seconds. Without it, clients
   * upload through Signet.
   */
  presignPut?(key: string, contentType: string, expiresIn: number): Promise<string>;
}

export class StorageNotFound extends Error {
  constructor(key: string) {
    super(`No stored object at ${key}`);
  }
}
