import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';
import { CHECKPOINTER_FAILED, DEFAULT_AUTOCHECKPOINT, startCheckpointer } from '../../src/db/sqlite-checkpointer.ts';

/*
 * WAL checkpoints on a worker thread (src/db/sqlite-checkpointer.ts), as the server runs them:
 * what is committed reaches the database file without the server's connection checkpointing,
 * the WAL does not grow without bound, and closing leaves a complete file with no WAL behind.
 */

let dir: string;
let file: string;
let handle: DbHandle;
let db: Kysely<any>;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-checkpoint-'));
  file = path.join(dir, 'signet.db');
  handle = createDb({ databaseUrl: undefined, sqliteFile: file, checkpointInBackground: true });
  db = handle.db as unknown as Kysely<any>;
  await sql`create table items (id integer primary key, body text not null)`.execute(db);
});
afterEach(async () => {
  await handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const until = async (check: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
};

/** Rows in the database file alone, without its WAL: what a checkpoint has copied there. */
function rowsInFile(): number {
  const copy = path.join(dir, `copy-${Date.now()}.db`);
  fs.copyFileSync(file, copy);
  const c = new SQLite(copy, { readonly: true });
  try {
    return (c.prepare('select count(*) as n from items').get() as { n: number }).n;
  } catch {
    return 0; // The table itself is not in the file yet.
  } finally {
    c.close();
    fs.rmSync(copy);
  }
}

const walBytes = () => (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
const body = 'x'.repeat(2000);

describe('SQLite checkpoints on a worker thread', () => {
  it('leaves checkpointing to the worker, which copies committed pages into the database file', async () => {
    expect((await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0].wal_autocheckpoint).toBe(0);
    await Promise.all(Array.from({ length: 200 }, () => db.transaction().execute((trx) => trx.insertInto('items').values({ body }).execute())));
    expect(await until(() => rowsInFile() === 200)).toBe(true);
  });

  it('keeps the WAL bounded while writes go on: each checkpoint lets it start over', async () => {
    // Ten rounds of 400 rows of 2 KB: 8 MB written in all, each round checkpointed by the worker
    // (on its own schedule) before the next.
    let largest = 0;
    for (let round = 1; round <= 10; round++) {
      await Promise.all(Array.from({ length: 400 }, () => db.transaction().execute((trx) => trx.insertInto('items').values({ body }).execute())));
      largest = Math.max(largest, walBytes());
      expect(await until(() => rowsInFile() === round * 400)).toBe(true);
    }
    expect(largest).toBeLessThan(3 * 1024 * 1024);
  });

  it('closes with everything in the database file and no WAL left', async () => {
    await Promise.all(Array.from({ length: 50 }, () => db.transaction().execute((trx) => trx.insertInto('items').values({ body }).execute())));
    await handle.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    expect(rowsInFile()).toBe(50);
    handle = createDb({ databaseUrl: undefined, sqliteFile: file });
  });

  it('gives checkpointing back to the connection when the worker fails, and says why', async () => {
    const settings: number[] = [];
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      // A directory is no database: the worker fails as it starts.
      startCheckpointer(dir, (pages) => settings.push(pages));
      expect(await until(() => settings.length === 2 && warnings.length > 0)).toBe(true);
    } finally {
      process.off('warning', onWarning);
    }
    expect(settings).toEqual([0, DEFAULT_AUTOCHECKPOINT]);
    const failure = warnings.find((w) => (w as Error & { code?: string }).code === CHECKPOINTER_FAILED);
    expect(failure?.message).toMatch(/^SQLite checkpoints on a worker thread stopped \(.+\)/);
  });
});
