import type { Config } from '../config.ts';
import { LocalStorage } from './local.ts';
import { S3Storage } from './s3.ts';
import type { Storage } from './storage.ts';
import { GuardedStorage } from './guarded.ts';

/** The storage driver the configuration names. */
export function createStorage(config: Config): Storage {
  return new GuardedStorage(
    config.storage.driver === 's3'
      ? new S3Storage(config.storage)
      : new LocalStorage(config.storage.root),
  );
}
