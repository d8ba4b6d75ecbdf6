import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, migrate, migrations, type DbHandle } from '../../src/db/create-db.ts';
import { signetTables } from '../../src/db/migrations/0007-change-notifications.ts';
import { STATEMENT_TRIGGERS } from '../../src/db/migrations/0008-statement-change-notifications.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.ts';

/*
 * The change marks of a PostgreSQL database (src/db/pg-change-feed.ts). The read cache trusts
 * changeMark, the API key cache keysMark: a mark that stays put while what it covers changed
 * would serve stale answers, so every write must move it (at once when made through the handle,
 * on its notification when made elsewhere), and a mark must be null whenever the feed is not
 * known to deliver.
 */

const now = '2026-01-01T00:00:00.000Z';

async function until(what: string, ok: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.skipIf(!testDatabaseUrl)('PostgreSQL change feed (skipped without TEST_DATABASE_URL)', () => {
  let database: TestDatabase;
  let handle: DbHandle;
  /** Another process's connection: no feed of its own. */
  let other: DbHandle;

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = createDb({ databaseUrl: database.url, sqliteFile: '', poolSize: 3, watchChanges: true });
    other = createDb({ databaseUrl: database.url, sqliteFile: '', poolSize: 1 });
    await handle.db.insertInto('organizations').values({ id: 'org_feed', name: 'Feed', admin_email: 'a@example.test', created_at: now, updated_at: now }).execute();
    await until('the feed is live', () => handle.changeMark!() !== null);
  });
  afterAll(async () => {
    await other?.close();
    await handle?.close();
    await database?.drop();
  });

  const marks = () => ({ change: handle.changeMark!(), keys: handle.keysMark!() });

  const tablesWith = async (trigger: string) => {
    const { rows } = await sql<{ table: string }>`select c.relname as table from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where t.tgname = ${trigger} and not t.tgisinternal`.execute(handle.db);
    return rows.map((r) => r.table).sort();
  };

  it('puts the statement triggers on every table of the schema, and no row trigger', async () => {
    const tables = await signetTables(handle.db);
    expect(tables).toContain('documents');
    expect(tables).toContain('api_keys');
    for (const name of [...STATEMENT_TRIGGERS, 'signet_changes_truncate']) expect(await tablesWith(name)).toEqual(tables);
    expect(await tablesWith('signet_changes')).toEqual([]);
  });

  it('migrates back to one trigger per row, and forward again', async () => {
    const scratch = await createTestDatabase();
    const db = scratch.handle;
    try {
      const triggers = async () =>
        (
          await sql<{ name: string }>`select distinct t.tgname as name from pg_trigger t where not t.tgisinternal and t.tgname like 'signet%' order by 1`.execute(db.db)
        ).rows.map((r) => r.name);
      const migrator = new Migrator({ db: db.db, provider: { getMigrations: async () => migrations } });
      const down = await migrator.migrateTo('0007-change-notifications');
      expect(down.error).toBeUndefined();
      expect(await triggers()).toEqual(['signet_changes', 'signet_changes_truncate']);
      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      expect(await triggers()).toEqual([...STATEMENT_TRIGGERS, 'signet_changes_truncate'].sort());
    } finally {
      await scratch.drop();
    }
  });

  it('has no marks on a handle opened without watchChanges', () => {
    expect(other.changeMark).toBeUndefined();
    expect(other.keysMark).toBeUndefined();
  });

  it('moves both marks on a key write through the handle before the write returns, only the change mark on others', async () => {
    let before = marks();
    await handle.db.insertInto('api_keys').values({ id: 'key_1', org_id: 'org_feed', name: 'k', key_hash: 'h1', prefix: 'sk_', scopes: '[]', created_at: now }).execute();
    let after = marks();
    expect(after.change).not.toBe(before.change);
    expect(after.keys).not.toBe(before.keys);

    before = after;
    await handle.db.transaction().execute(async (trx) => {
      await trx.updateTable('organizations').set({ name: 'Renamed' }).where('id', '=', 'org_feed').execute();
      await trx.selectFrom('organizations').select('id').execute();
    });
    after = marks();
    expect(after.change).not.toBe(before.change);
    expect(after.keys).not.toBe(before.keys);

    // Let this process's own notifications arrive, then a write that is no key's business.
    await new Promise((resolve) => setTimeout(resolve, 50));
    before = marks();
    await handle.db.insertInto('folders').values({ id: 'fld_1', org_id: 'org_feed', name: 'F', created_at: now, updated_at: now }).execute();
    after = marks();
    expect(after.change).not.toBe(before.change);
    expect(after.keys).toBe(before.keys);
    // Its own notification, when it arrives, moves nothing more: the write was counted as it ran.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(marks()).toEqual(after);

    // Nor does a write here that changes no row, in a transaction or not; one inside a WITH does.
    before = marks();
    await handle.db.updateTable('jobs').set({ attempts: 1 }).where('id', '=', 'no_such_job').execute();
    await handle.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('api_keys').where('id', '=', 'no_such_key').execute();
    });
    expect(marks()).toEqual(before);
    await sql`with f as (insert into folders (id, org_id, name, created_at, updated_at) values ('fld_w', 'org_feed', 'W', ${now}, ${now}))
      delete from folders where id = 'no_such_folder'`.execute(handle.db);
    expect(marks().change).not.toBe(before.change);
    // A transaction undone moves the marks again: what was read in between is gone.
    await new Promise((resolve) => setTimeout(resolve, 50));
    let inside: ReturnType<typeof marks> | undefined;
    await handle.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('folders').set({ name: 'X' }).where('id', '=', 'fld_w').execute();
        inside = marks();
        throw new Error('undo');
      })
      .catch(() => undefined);
    expect(marks().change).not.toBe(inside!.change);

    before = marks();
    await handle.db.selectFrom('api_keys').selectAll().execute();
    await sql`select count(*) from documents`.execute(handle.db);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(marks()).toEqual(before);
  });

  it('moves the marks when another connection commits, the keys mark only for key tables', async () => {
    let before = marks();
    await other.db.insertInto('folders').values({ id: 'fld_2', org_id: 'org_feed', name: 'G', created_at: now, updated_at: now }).execute();
    await until('the change mark moves', () => marks().change !== before.change);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(marks().keys).toBe(before.keys);

    before = marks();
    await other.db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', 'key_1').execute();
    await until('the keys mark moves', () => marks().keys !== before.keys);
    expect(marks().change).not.toBe(before.change);

    // Uncommitted work announces nothing; its commit does.
    before = marks();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(`delete from folders where id = 'fld_2'`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(marks()).toEqual(before);
      await client.query('commit');
      await until('the change mark moves', () => marks().change !== before.change);
      // A statement that changes no row (another instance's worker polling) announces nothing.
      before = marks();
      await client.query(`update folders set name = name where false`);
      await client.query(`delete from api_keys where id = 'no_such_key'`);
      await client.query(`insert into folders select * from folders where false`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(marks()).toEqual(before);
    } finally {
      await client.end();
    }
  });

  it('turns the marks off while its connection is lost, and back on with new values', async () => {
    const before = marks();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'`);
    } finally {
      await admin.end();
    }
    await until('the marks go off', () => handle.changeMark!() === null && handle.keysMark!() === null);
    // Missed while off: must not be mistaken for the state before.
    await other.db.insertInto('folders').values({ id: 'fld_3', org_id: 'org_feed', name: 'H', created_at: now, updated_at: now }).execute();
    await until('the feed is live again', () => handle.changeMark!() !== null, 10_000);
    const after = marks();
    expect(after.change).not.toBe(before.change);
    expect(after.keys).not.toBe(before.keys);
  });

  it('keeps the marks off until the database is migrated', async () => {
    const empty = await createTestDatabase({ migrated: false });
    const fresh = createDb({ databaseUrl: empty.url, sqliteFile: '', poolSize: 2, watchChanges: true });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(fresh.changeMark!()).toBeNull();
      expect(fresh.keysMark!()).toBeNull();
      await migrate(fresh.db);
      await until('the feed is live', () => fresh.changeMark!() !== null);
    } finally {
      await fresh.close();
      await empty.drop();
    }
  });
});
