import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';
import type { Db } from '../../src/db/database.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.ts';

/*
 * A read outside any transaction does not wait for another request's transaction to commit (on
 * SQLite it runs on the read-only connection, on PostgreSQL on another connection of the pool),
 * sees only what was committed, and a request reads what it wrote; inside a transaction reads
 * see its own rows.
 */
const settingOf = async (db: Db, key: string) =>
  (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())
    ?.value;

/** Whether `promise` settles within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms)),
  ]);

/** A transaction that writes `key` and then waits for `release` before it commits. */
function openTransaction(db: Db, key: string) {
  let release!: () => void;
  let written!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const inside = new Promise<void>((r) => (written = r));
  const done = db.transaction().execute(async (trx) => {
    await trx.insertInto('settings').values({ key, value: 'uncommitted' }).execute();
    expect(await settingOf(trx, key)).toBe('uncommitted');
    written();
    await released;
  });
  return { inside, release, done };
}

describe('reads beside an open transaction', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('answer at once with what was committed, and see the commit after it', async () => {
    const { db } = database.handle;
    await db.insertInto('settings').values({ key: 'before', value: 'committed' }).execute();
    const tx = openTransaction(db, 'during');
    await tx.inside;
    const read = Promise.all([settingOf(db, 'before'), settingOf(db, 'during')]);
    expect(await settlesWithin(read, 1_000)).toBe(true);
    expect(await read).toEqual(['committed', undefined]);
    tx.release();
    await tx.done;
    expect(await settingOf(db, 'during')).toBe('uncommitted');
    // A write outside a transaction, read straight after: the request sees it.
    await db
      .updateTable('settings')
      .set({ value: 'updated' })
      .where('key', '=', 'during')
      .execute();
    expect(await settingOf(db, 'during')).toBe('updated');
  });
});

describe.skipIf(testDatabaseUrl)('SQLite: the write connection (SQLite only)', () => {
  let database: TestDatabase;
  let handles: DbHandle[] = [];
  const open = (readConnection: boolean) => {
    const handle = createDb({
      databaseUrl: undefined,
      sqliteFile: path.join(database.dataDir, 'signet.db'),
      readConnection,
    });
    handles.push(handle);
    return handle.db;
  };
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const h of handles) await h.close();
    handles = [];
    await database.drop();
  });

  it('with one connection (PERF_OFF=read-connection) a read waits for the commit', async () => {
    const db = open(false);
    const tx = openTransaction(db, 'during');
    await tx.inside;
    const read = settingOf(db, 'during');
    expect(await settlesWithin(read, 300)).toBe(false);
    tx.release();
    expect(await read).toBe('uncommitted');
  });

  it('keeps a transaction written out on db.connection() to itself, writes of others after it', async () => {
    const db = open(true);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let begun!: () => void;
    const inside = new Promise<void>((r) => (begun = r));
    const held = db.connection().execute(async (conn) => {
      await sql`pragma busy_timeout = 60000`.execute(conn);
      await sql`begin immediate`.execute(conn);
      await conn.insertInto('settings').values({ key: 'a', value: '1' }).execute();
      begun();
      await released;
      await sql`rollback`.execute(conn);
    });
    await inside;
    const write = db.insertInto('settings').values({ key: 'b', value: '2' }).execute();
    expect(await settlesWithin(write, 300)).toBe(false);
    release();
    await held;
    await write;
    expect([await settingOf(db, 'a'), await settingOf(db, 'b')]).toEqual([undefined, '2']);
    // The pragma set a value on the writer, not on the read-only connection.
    const { rows } = await db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        return await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
    expect(rows[0].timeout).toBe(60_000);
  });
  it('keeps savepoints inside a transaction as Kysely writes them', async () => {
    const db = open(true);
    const trx = await db.startTransaction().execute();
    await trx.insertInto('settings').values({ key: 'kept', value: '1' }).execute();
    const inner = await trx.savepoint('inner').execute();
    await inner.insertInto('settings').values({ key: 'undone', value: '2' }).execute();
    await inner.rollbackToSavepoint('inner').execute();
    await trx.commit().execute();
    expect([await settingOf(db, 'kept'), await settingOf(db, 'undone')]).toEqual(['1', undefined]);
  });
});
