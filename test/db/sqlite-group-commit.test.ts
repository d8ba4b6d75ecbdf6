import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';

/*
 * SQLite group commit (src/db/sqlite-group-commit.ts): transactions ready in the same turn of
 * the event loop share one COMMIT. Held here to what a caller must be able to rely on: a
 * transaction resolves only once another connection can see it, one that fails is undone alone,
 * a failed COMMIT fails all of its batch, and a query outside a transaction never reads (or
 * leaves behind) what is not committed. Runs on SQLite whatever TEST_DATABASE_URL says.
 */

let dir: string;
let handle: DbHandle;
let db: Kysely<any>;
/** Another connection to the same file, as another process (the CLI, a second instance) has. */
let other: SQLite.Database;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-group-commit-'));
  handle = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'signet.db') });
  db = handle.db as unknown as Kysely<any>;
  await sql`create table items (id integer primary key, label text not null unique)`.execute(db);
  await sql`create table parents (id integer primary key)`.execute(db);
  await sql`create table children (id integer primary key, parent_id integer not null references parents (id) deferrable initially deferred)`.execute(db);
  other = new SQLite(path.join(dir, 'signet.db'));
});
afterEach(async () => {
  other.close();
  await handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const seenByOther = (table = 'items') => (other.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
const insert = (label: string) => db.transaction().execute((trx) => trx.insertInto('items').values({ label }).execute());
const stats = () => handle.commitStats!();

describe('SQLite group commit', () => {
  it('commits the transactions of one turn together, each resolving only once another connection sees it', async () => {
    const before = stats();
    const visibleWhenResolved: number[] = [];
    let uncommittedInside = -1;
    let ownViewInside = -1;
    const all = Array.from({ length: 10 }, (_, i) =>
      db
        .transaction()
        .execute(async (trx) => {
          if (i === 9) {
            // The nine before this one ran and released their savepoints; none is committed yet.
            uncommittedInside = seenByOther();
            ownViewInside = Number((await sql<{ n: number }>`select count(*) as n from items`.execute(trx)).rows[0].n);
          }
          await trx.insertInto('items').values({ label: `item ${i}` }).execute();
        })
        .then(() => visibleWhenResolved.push(seenByOther())),
    );
    await Promise.all(all);
    expect(uncommittedInside).toBe(0);
    expect(ownViewInside).toBe(9);
    expect(visibleWhenResolved).toEqual(Array(10).fill(10));
    expect(stats().commits - before.commits).toBe(1);
    expect(stats().transactions - before.transactions).toBe(10);
  });

  it('undoes a transaction that fails, alone: the others of its batch commit', async () => {
    const results = await Promise.allSettled([
      insert('a'),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ label: 'thrown away' }).execute();
        throw new Error('changed my mind');
      }),
      insert('b'),
      // A statement that fails: the unique label of the first transaction.
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ label: 'also thrown away' }).execute();
        await trx.insertInto('items').values({ label: 'a' }).execute();
      }),
      insert('c'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[3] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(other.prepare('select label from items order by id').pluck().all()).toEqual(['a', 'b', 'c']);
  });

  it('fails every transaction of a batch whose COMMIT fails, leaves none of it behind, and goes on', async () => {
    await db.insertInto('parents').values({ id: 1 }).execute();
    const results = await Promise.allSettled([
      insert('before'),
      // A deferred foreign key is checked at COMMIT: the whole batch's COMMIT fails.
      db.transaction().execute((trx) => trx.insertInto('children').values({ id: 1, parent_id: 404 }).execute()),
      db.transaction().execute((trx) => trx.insertInto('children').values({ id: 2, parent_id: 1 }).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(seenByOther()).toBe(0);
    expect(seenByOther('children')).toBe(0);
    expect((await db.selectFrom('items').selectAll().execute()).length).toBe(0);

    await insert('after');
    await db.transaction().execute((trx) => trx.insertInto('children').values({ id: 3, parent_id: 1 }).execute());
    expect(other.prepare('select label from items').pluck().all()).toEqual(['after']);
    expect(seenByOther('children')).toBe(1);
  });

  it('has a query outside a transaction read committed data only, even one asked for while a batch is built', async () => {
    let read: Promise<unknown[]> | undefined;
    let write: Promise<number> | undefined;
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ label: `batched ${i}` }).execute();
          if (i === 2) {
            // Not through trx: these wait for the connection like any other request's queries.
            read = db.selectFrom('items').select('label').execute();
            write = db.insertInto('items').values({ label: 'alone' }).execute().then(() => seenByOther());
          }
        }),
      ),
    );
    // Inside the open batch it would have seen three rows, none of them committed yet.
    expect((await read!).length).toBe(5);
    // The write outside a transaction commits on its own, after the batch.
    expect(await write!).toBe(6);
  });

  it('bounds a batch: many transactions at once still commit, in several COMMITs', async () => {
    const before = stats();
    await Promise.all(Array.from({ length: 150 }, (_, i) => insert(`many ${i}`)));
    expect(seenByOther()).toBe(150);
    expect(stats().transactions - before.transactions).toBe(150);
    expect(stats().commits - before.commits).toBeGreaterThanOrEqual(3);
  });

  it('commits what is pending when the database is closed', async () => {
    const pending = insert('last one');
    await handle.close();
    await pending;
    expect(seenByOther()).toBe(1);
    handle = createDb({ databaseUrl: undefined, sqliteFile: path.join(dir, 'signet.db') });
  });

  it('keeps savepoints of controlled transactions working inside its own', async () => {
    const trx = await db.startTransaction().execute();
    await trx.insertInto('items').values({ label: 'kept' }).execute();
    const sp = await trx.savepoint('before_second').execute();
    await sp.insertInto('items').values({ label: 'undone' }).execute();
    const back = await sp.rollbackToSavepoint('before_second').execute();
    await back.releaseSavepoint('before_second').execute();
    await trx.commit().execute();
    expect(other.prepare('select label from items').pluck().all()).toEqual(['kept']);
  });

  it('keeps a connection held with db.connection() usable after a transaction on it, among others', async () => {
    const others = Array.from({ length: 3 }, (_, i) => insert(`other ${i}`));
    const more: Promise<unknown>[] = [];
    const seen = await db.connection().execute(async (conn) => {
      await conn.transaction().execute((trx) => trx.insertInto('items').values({ label: 'on the connection' }).execute());
      more.push(...Array.from({ length: 3 }, (_, i) => insert(`more ${i}`)));
      const rows = await conn.selectFrom('items').select('label').execute();
      return rows.map((r) => r.label);
    });
    await Promise.all([...others, ...more]);
    expect(seen).toContain('on the connection');
    // Whatever it read was committed: nothing of a batch still open.
    expect(seen.length).toBeLessThanOrEqual(seenByOther());
    expect(seenByOther()).toBe(7);
  });
});
