import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';
import { nameStatement } from '../../src/db/named-statements.ts';
import { prepared } from '../../src/db/prepared.ts';
import { listDocuments } from '../../src/modules/documents-core/documents.repository.ts';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../helpers/database.ts';

/*
 * PostgreSQL runs the marked hot statements by name (prepared once per connection). Seen from
 * the server: pg_prepared_statements lists a session's own prepared statements, so the handle
 * here has a single connection.
 */
describe.skipIf(!testDatabaseUrl)(
  'named statements (PostgreSQL; skipped without TEST_DATABASE_URL)',
  () => {
    let database: TestDatabase;
    let one: DbHandle;
    beforeAll(async () => {
      database = await createTestDatabase();
      one = createDb({ databaseUrl: database.url, sqliteFile: '', poolSize: 1 });
    });
    afterAll(async () => {
      await one.close();
      await database.drop();
    });

    const preparedHere = async () =>
      (
        await sql<{
          name: string;
          statement: string;
        }>`select name, statement from pg_prepared_statements`.execute(one.db)
      ).rows;

    it('prepares a prepared query once and then runs it by name with each call’s values', async () => {
      const byName = prepared<{ name: string }, { n: number }>((db, p) =>
        db
          .selectFrom('organizations')
          .select(sql<number>`count(*)`.as('n'))
          .where('name', '=', p.name),
      );
      await one.db
        .insertInto('organizations')
        .values({
          id: 'org_1',
          name: 'Named',
          admin_email: 'a@example.test',
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
        })
        .execute();
      expect((await byName.execute(one.db, { name: 'Named' })).rows[0].n).toBe(1);
      expect((await byName.execute(one.db, { name: 'Other' })).rows[0].n).toBe(0);
      const named = (await preparedHere()).filter((s) =>
        s.statement.includes('from "organizations"'),
      );
      expect(named).toHaveLength(1);
      expect(named[0].name).toMatch(/^signet_[0-9a-f]{20}$/);
    });

    it('leaves other statements unnamed', async () => {
      await one.db.selectFrom('folders').select('id').where('org_id', '=', 'org_x').execute();
      expect((await preparedHere()).some((s) => s.statement.includes('"folders"'))).toBe(false);
    });

    it('names a text only where it is marked: marking is no registry other callers see', async () => {
      const text = 'select count(*) as n from "signers" where "document_id" = $1';
      const signers = async () =>
        (await preparedHere()).filter((s) => s.statement.includes('"signers"'));
      nameStatement(text);
      await one.db.executeQuery({ ...sql.raw(text).compile(one.db), parameters: ['org_x'] });
      expect(await signers()).toHaveLength(0);
      const marked = nameStatement(text);
      await one.db.executeQuery({ ...sql.raw(marked).compile(one.db), parameters: ['org_x'] });
      expect(await signers()).toHaveLength(1);
    });

    it('runs the document list by name', async () => {
      const page = { list: 'documents' };
      await listDocuments(one.db, 'org_1', {}, page);
      await listDocuments(one.db, 'org_1', { status: 'pending' }, page);
      const lists = (await preparedHere()).filter((s) => s.statement.includes('from "documents"'));
      expect(lists).toHaveLength(2);
    });
  },
);
