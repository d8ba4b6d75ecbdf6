import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { StorageNotFound, type Storage, type StoredKey, type StoredObject } from './storage.ts';

/** A write in progress (put's temporary file), never listed. */
const PART = /\.[0-9a-f]{12}\.part$/;

/**
 * Files under one directory. Writes go to a temporary file renamed into place, so readers never
 * see half a file. Directories are created 0700 and files 0600: only Signet's user reads them.
 */
export class LocalStorage implements Storage {
  readonly driver = 'local' as const;
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    const resolved = path.resolve(this.root, key);
    if (!resolved.startsWith(path.resolve(this.root) + path.sep))
      throw new Error(`Storage key escapes the root: ${key}`);
    return resolved;
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.pathOf(key);
    await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temp = `${target}.${randomBytes(6).toString('hex')}.part`;
    try {
      await pipeline(body, fs.createWriteStream(temp, { mode: 0o600 }));
      await fsp.rename(temp, target);
    } catch (err) {
      await fsp.rm(temp, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Readable> {
    const file = this.pathOf(key);
    try {
      const handle = await fsp.open(file, 'r');
      return handle.createReadStream();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StorageNotFound(key);
      throw err;
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const s = await fsp.stat(this.pathOf(key));
      return { size: s.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  /**
   * Walks the tree depth first, reading each directory as a stream (opendir): memory holds one
   * open directory per level, however many files and folders there are.
   */
  async *list(prefix = ''): AsyncIterable<StoredKey> {
    const root = path.resolve(this.root);
    async function* walk(dir: string): AsyncGenerator<StoredKey> {
      let handle: fs.Dir;
      try {
        handle = await fsp.opendir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      for await (const entry of handle) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) yield* walk(full);
        else if (entry.isFile() && !PART.test(entry.name)) {
          // A file deleted since the directory was read is not listed.
          const size = await fsp.stat(full).then(
            (s) => s.size,
            () => null,
          );
          if (size !== null)
            yield { key: path.relative(root, full).split(path.sep).join('/'), size };
        }
      }
    }
    yield* walk(prefix ? this.pathOf(prefix) : root);
  }

  async ping(): Promise<void> {
    await fsp.mkdir(this.root, { recursive: true, mode: 0o700 });
    await fsp.access(this.root, fs.constants.W_OK);
  }
}
