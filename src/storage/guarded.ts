import type { Readable } from 'node:stream';
import { AppError } from '../http/errors.ts';
import { storageUnavailable } from '../http/unavailable.ts';
import { StorageNotFound, type Storage, type StoredKey, type StoredObject } from './storage.ts';

/**
 * The configured driver with its failures named: anything but "no such object" (a directory that
 * cannot be written, an S3 endpoint that does not answer) becomes 503 `storage_unavailable`, so an
 * API call that needs storage says so instead of answering 500. The drivers write whole objects
 * or nothing (local: temporary file renamed into place; S3: one PUT or multipart upload).
 */
export class GuardedStorage implements Storage {
  readonly driver: Storage['driver'];
  readonly presignPut?: Storage['presignPut'];

  constructor(private readonly inner: Storage) {
    this.driver = inner.driver;
    if (inner.presignPut)
      this.presignPut = (key, contentType, expiresIn) =>
        this.guard('presign', () => inner.presignPut!(key, contentType, expiresIn));
  }

  private async guard<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      // Not found is an answer; an AppError is the caller's own (a body over its limit, a wrong type).
      if (err instanceof StorageNotFound || err instanceof AppError) throw err;
      throw Object.assign(storageUnavailable(operation), { cause: err });
    }
  }

  put(key: string, body: Readable, contentType: string): Promise<void> {
    return this.guard('write', () => this.inner.put(key, body, contentType));
  }
  get(key: string): Promise<Readable> {
    return this.guard('read', () => this.inner.get(key));
  }
  stat(key: string): Promise<StoredObject | null> {
    return this.guard('stat', () => this.inner.stat(key));
  }
  delete(key: string): Promise<void> {
    return this.guard('delete', () => this.inner.delete(key));
  }
  list(prefix?: string): AsyncIterable<StoredKey> {
    return this.inner.list(prefix);
  }
  ping(): Promise<void> {
    return this.inner.ping();
  }
  destroy(): void {
    this.inner.destroy?.();
  }
}
