import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { S3Access } from '../config.ts';
import { LocalStorage } from '../storage/local.ts';
import { S3Storage } from '../storage/s3.ts';
import { StorageNotFound, type Storage } from '../storage/storage.ts';

/**
 * Where a backup is written or read: a directory, or `s3://bucket/prefix` reached with the S3_*
 * variables (whatever STORAGE says). Both are the storage drivers the server uses for its own
 * files, so the same writes-whole-or-nothing rule holds (a temporary file renamed into place, a
 * multipart upload completed at the end).
 */
export interface BackupLocation {
  /** How messages name it. */
  readonly label: string;
  /** Whether nothing is there yet (a backup never overwrites another). */
  isEmpty(): Promise<boolean>;
  write(name: string, body: Readable): Promise<void>;
  /** Rejects with BackupFileMissing when there is no such file. */
  read(name: string): Promise<Readable>;
  close(): void;
}

export class BackupFileMissing extends Error {
  constructor(readonly file: string) {
    super(`${file} is missing from the backup`);
  }
}

export class LocationError extends Error {}

/** Names inside a backup are relative paths; one that climbs out is refused before it is opened. */
function checkName(name: string): string {
  if (name.startsWith('/') || name.split('/').some((p) => p === '..' || p === ''))
    throw new LocationError(`refusing the path ${JSON.stringify(name)} inside the backup`);
  return name;
}

export function openLocation(spec: string, s3: S3Access): BackupLocation {
  if (spec.startsWith('s3://')) {
    const rest = spec.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash === -1 ? rest : rest.slice(0, slash);
    const prefix = slash === -1 ? '' : rest.slice(slash + 1).replace(/\/*$/, '/');
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
      throw new LocationError(`${spec}: not a bucket name (s3://bucket/prefix)`);
    const storage = new S3Storage({ ...s3, bucket });
    return fromStorage(
      `s3://${bucket}/${prefix === '/' ? '' : prefix}`,
      storage,
      prefix === '/' ? '' : prefix,
    );
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec))
    throw new LocationError(`${spec}: a backup goes to a directory or to s3://bucket/prefix`);
  const dir = path.resolve(spec);
  const location = fromStorage(dir, new LocalStorage(dir), '');
  return {
    ...location,
    isEmpty: async () =>
      readdir(dir).then(
        (entries) => entries.length === 0,
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return true;
          if (err.code === 'ENOTDIR') throw new LocationError(`${dir} is a file, not a directory`);
          throw err;
        },
      ),
  };
}

function fromStorage(label: string, storage: Storage, prefix: string): BackupLocation {
  return {
    label,
    isEmpty: async () => {
      for await (const _ of storage.list(prefix)) return false;
      return true;
    },
    write: (name, body) => storage.put(prefix + checkName(name), body, 'application/octet-stream'),
    read: async (name) => {
      try {
        return await storage.get(prefix + checkName(name));
      } catch (err) {
        if (err instanceof StorageNotFound) throw new BackupFileMissing(name);
        throw err;
      }
    },
    close: () => storage.destroy?.(),
  };
}
