import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, migrate, migrations, type DbHandle } from '../../src/db/create-db.ts';
import {
  KEY_TABLE_NAMES,
  signetTables,
} from '../../src/db/migrations/0007-change-notifications.ts';
import { STATEMENT_TRIGGERS } from '../../src/db/migrations/0008-statement-change-notifications.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.ts';

/*
 * The keys mark of a PostgreSQL database (src/db/pg-change-feed.ts), which the API key cache
 * trusts: a mark that stays put while a key table changed would keep a revoked key working, so
 * every write to one must move it (at once when made through the handle, on its notification when
 * made elsewhere), and the mark must be null whenever the feed is not known to deliver.
 */

const now = '2026-01-01T00:00:00.000Z';

async function until(what: string, ok: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.skipIf(!testDatabaseUrl)(
  'PostgreSQL change feed (skipped without TEST_DATABASE_URL)',
  () => {
    let database: TestDatabase;
    let handle: DbHandle;
    /** Another process's connection: no feed of its own. */
    let other: DbHandle;

    beforeAll(async () => {
      database = await createTestDatabase();
      handle = createDb({
        databaseUrl: database.url,
        sqliteFile: '',
        poolSize: 3,
        watchChanges: true,
      });
      other = createDb({ databaseUrl: database.url, sqliteFile: '', poolSize: 1 });
      await handle.db
        .insertInto('organizations')
        .values({
          id: 'org_feed',
          name: 'Feed',
          admin_email: 'a@example.test',
          created_at: now,
          updated_at: now,
        })
        .execute();
      await until('the feed is live', () => handle.keysMark!() !== null);
    });
    afterAll(async () => {
      await other?.close();
      await handle?.close();
      await database?.drop();
    });

    const marks = () => ({ keys: handle.keysMark!() });

    const tablesWith = async (trigger: string) => {
      const { rows } = await sql<{
        table: string;
      }>`select c.relname as table from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where t.tgname = ${trigger} and not t.tgisinternal`.execute(handle.db);
      return rows.map((r) => r.table).sort();
    };

    it('puts the statement triggers on the key tables only, and no row trigger', async () => {
      const tables = await signetTables(handle.db);
      expect(tables).toContain('documents');
      for (const name of [...STATEMENT_TRIGGERS, 'signet_changes_truncate'])
        expect(await tablesWith(name)).toEqual([...KEY_TABLE_NAMES].sort());
      expect(await tablesWith('signet_changes')).toEqual([]);
    });

    it('migrates back to one trigger per row, and forward again', async () => {
      const scratch = await createTestDatabase();
      const db = scratch.handle;
      try {
        const triggers = async () =>
          (
            await sql<{
              name: string;
            }>`select distinct t.tgname as name from pg_trigger t where not t.tgisinternal and t.tgname like 'signet%' order by 1`.execute(
              db.db,
            )
          ).rows.map((r) => r.name);
        const migrator = new Migrator({
          db: db.db,
          provider: { getMigrations: async () => migrations },
        });
        const down = await migrator.migrateTo('0007-change-notifications');
        expect(down.error).toBeUndefined();
        expect(await triggers()).toEqual(['signet_changes', 'signet_changes_truncate']);
        const up = await migrator.migrateTo('0008-statement-change-notifications');
        expect(up.error).toBeUndefined();
        expect(await triggers()).toEqual([...STATEMENT_TRIGGERS, 'signet_changes_truncate'].sort());
        const documentTriggers = async () =>
          (
            await sql<{
              name: string;
            }>`select t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid where c.relname = 'documents' and t.tgname like 'signet%'`.execute(
              db.db,
            )
          ).rows.length;
        expect(await documentTriggers()).toBe(4);
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        expect(await documentTriggers()).toBe(0);
        // And back: every table announces its changes again.
        expect(
          (await migrator.migrateTo('0008-statement-change-notifications')).error,
        ).toBeUndefined();
        expect(await documentTriggers()).toBe(4);
      } finally {
        await scratch.drop();
      }
    });

    it('has no mark on a handle opened without watchChanges', () => {
      expect(other.keysMark).toBeUndefined();
    });

    it('moves the mark on a key write through the handle before the write returns, not on others', async () => {
      let before = marks();
      await handle.db
        .insertInto('api_keys')
        .values({
          id: 'key_1',
          org_id: 'org_feed',
          name: 'k',
          key_hash: 'h1',
          prefix: 'sk_',
          scopes: '[]',
          created_at: now,
        })
        .execute();
      let after = marks();
      expect(after.keys).not.toBe(before.keys);

      before = after;
      await handle.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('organizations')
          .set({ name: 'Renamed' })
          .where('id', '=', 'org_feed')
          .execute();
        await trx.selectFrom('organizations').select('id').execute();
      });
      after = marks();
      expect(after.keys).not.toBe(before.keys);

      // Let this process's own notifications arrive, then a write that is no key's business.
      await new Promise((resolve) => setTimeout(resolve, 50));
      before = marks();
      await handle.db
        .insertInto('folders')
        .values({ id: 'fld_1', org_id: 'org_feed', name: 'F', created_at: now, updated_at: now })
        .execute();
      expect(marks()).toEqual(before);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(marks()).toEqual(before);

      // Nor does a write here that changes no row, in a transaction or not.
      await handle.db
        .updateTable('api_keys')
        .set({ name: 'x' })
        .where('id', '=', 'no_such_key')
        .execute();
      await handle.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('api_keys').where('id', '=', 'no_such_key').execute();
      });
      expect(marks()).toEqual(before);
      // A key write inside a WITH does (its row count does not tell).
      await sql`with k as (update api_keys set name = 'w' where id = 'key_1') delete from folders where id = 'no_such_folder'`.execute(
        handle.db,
      );
      expect(marks().keys).not.toBe(before.keys);
      // A transaction undone moves the mark again: a key read in between is gone.
      await new Promise((resolve) => setTimeout(resolve, 50));
      let inside: ReturnType<typeof marks> | undefined;
      await handle.db
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('api_keys').set({ name: 'X' }).where('id', '=', 'key_1').execute();
          inside = marks();
          throw new Error('undo');
        })
        .catch(() => undefined);
      expect(marks().keys).not.toBe(inside!.keys);

      before = marks();
      await handle.db.selectFrom('api_keys').selectAll().execute();
      await sql`select count(*) from documents`.execute(handle.db);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(marks()).toEqual(before);
    });

    it('moves the mark when another connection commits to a key table, and only then', async () => {
      let before = marks();
      await other.db
        .insertInto('folders')
        .values({ id: 'fld_2', org_id: 'org_feed', name: 'G', created_at: now, updated_at: now })
        .execute();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(marks()).toEqual(before);

      await other.db
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('id', '=', 'key_1')
        .execute();
      await until('the keys mark moves', () => marks().keys !== before.keys);

      // Uncommitted work announces nothing; its commit does.
      before = marks();
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query('begin');
        await client.query(`delete from api_keys where id = 'key_1'`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(marks()).toEqual(before);
        await client.query('commit');
        await until('the keys mark moves', () => marks().keys !== before.keys);
        // A statement that changes no row (another instance's poll) announces nothing.
        before = marks();
        await client.query(`update api_keys set name = name where false`);
        await client.query(`delete from api_keys where id = 'no_such_key'`);
        await client.query(`insert into api_keys select * from api_keys where false`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(marks()).toEqual(before);
      } finally {
        await client.end();
      }
    });

    it('turns the mark off while its connection is lost, and back on with a new value', async () => {
      const before = marks();
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'`);
      } finally {
        await admin.end();
      }
      await until('the mark goes off', () => handle.keysMark!() === null);
      // Missed while off: must not be mistaken for the state before.
      await other.db
        .insertInto('api_keys')
        .values({
          id: 'key_3',
          org_id: 'org_feed',
          name: 'k3',
          key_hash: 'h3',
          prefix: 'sk_',
          scopes: '[]',
          created_at: now,
        })
        .execute();
      await until('the feed is live again', () => handle.keysMark!() !== null, 10_000);
      expect(marks().keys).not.toBe(before.keys);
    });

    it('keeps the mark off until the database is migrated', async () => {
      const empty = await createTestDatabase({ migrated: false });
      const fresh = createDb({
        databaseUrl: empty.url,
        sqliteFile: '',
        poolSize: 2,
        watchChanges: true,
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(fresh.keysMark!()).toBeNull();
        await migrate(fresh.db);
        await until('the feed is live', () => fresh.keysMark!() !== null);
      } finally {
        await fresh.close();
        await empty.drop();
      }
    });
  },
);
