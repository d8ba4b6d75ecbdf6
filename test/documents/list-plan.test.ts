import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { listDocuments } from '../../src/modules/documents-core/documents.repository.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { dialectName } from '../helpers/database.ts';

/*
 * SQLite: a list page with a search checks the name on the entries of the index that orders the
 * organization's documents, never on the table rows of documents that do not match (migration
 * 0011b2). With a million
 * documents over a thousand organizations the table-row form held the event loop 6-14 ms per
 * search; the plan is what keeps it from coming back.
 */

describe.skipIf(dialectName !== 'sqlite')('document list plan (SQLite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t?.close());

  it('checks a search on the entries of the index that orders the list', async () => {
    const sqlite = new SQLite(path.join(t.database.dataDir, 'signet.db'), { readonly: true });
    const seen: { sql: string; parameters: readonly unknown[] }[] = [];
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      log: (event) => {
        if (event.level === 'query')
          seen.push({ sql: event.query.sql, parameters: event.query.parameters });
      },
    });
    try {
      const first = await listDocuments(
        db,
        t.orgId,
        { search: 'lease' },
        { list: 'documents', limit: 2 },
      );
      expect(first.rows).toEqual([]);
      for (const q of seen) {
        const plan = (
          sqlite.prepare(`explain query plan ${q.sql}`).all(...q.parameters) as { detail: string }[]
        ).map((r) => r.detail);
        expect(plan[0]).toMatch(
          /^SEARCH documents USING (COVERING )?INDEX documents_org_created_search \(org_id=\?/,
        );
      }
      expect(seen.length).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});
