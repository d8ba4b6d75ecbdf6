import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';
import { SCOPES } from '../../src/http/auth.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { createApiKey, revokeApiKey } from '../../src/modules/orgs/orgs.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { dialectName } from '../helpers/database.ts';

/*
 * On PostgreSQL API keys are kept in memory while the key tables are unchanged (keysMark,
 * db/pg-change-feed.ts); SQLite looks every key up. Either way a revoked key is refused at once
 * when revoked here, and (PostgreSQL) as soon as another connection's revocation is announced.
 * Reads are never answered from memory: another connection's change shows on the next request.
 */

let t: TestApp;
/** A second connection to the same database, as another process would have. */
let other: DbHandle;
const sqlite = dialectName === 'sqlite';

beforeAll(async () => {
  t = await buildTestApp();
  other = createDb({
    databaseUrl: t.database.url,
    sqliteFile: path.join(t.database.dataDir, 'signet.db'),
    poolSize: 2,
  });
});
afterAll(async () => {
  await other.close();
  await t.close();
});

async function until(ok: () => boolean): Promise<void> {
  for (const end = Date.now() + 3_000; !ok(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const markNow = () => t.database.handle.keysMark?.();

describe('API keys and reads across connections', () => {
  it('sees a change committed by another connection on the next request', async () => {
    const doc = (await t.request('POST', '/api/v1/documents', { body: { name: 'Before' } })).body
      .data;
    await t.request('GET', '/api/v1/documents?limit=3');
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.name).toBe('Before');
    await other.db
      .updateTable('documents')
      .set({ name: 'After', search_name: 'after' })
      .where('id', '=', doc.id)
      .execute();
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.name).toBe('After');
    expect(
      (await t.request('GET', '/api/v1/documents?limit=3')).body.data.find(
        (d: { id: string }) => d.id === doc.id,
      ).name,
    ).toBe('After');
    await other.db
      .updateTable('documents')
      .set({ deleted_at: new Date().toISOString() })
      .where('id', '=', doc.id)
      .execute();
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).status).toBe(404);
  });

  it('refuses a key at once once it is revoked, here or by another connection (the CLI)', async () => {
    for (const via of [() => t.database.handle.db, () => other.db]) {
      const created = await createApiKey(t.database.handle.db, {
        orgId: t.orgId,
        scopes: [...SCOPES],
      });
      expect(
        (await t.request('GET', '/api/v1/documents?limit=1', { key: created.key })).status,
      ).toBe(200);
      expect(
        (await t.request('GET', '/api/v1/documents?limit=1', { key: created.key })).status,
      ).toBe(200);
      const mark = markNow();
      expect(await revokeApiKey(via(), created.id)).toBe(true);
      // PostgreSQL: another connection's revocation counts once its notification is in.
      if (!sqlite) await until(() => markNow() !== mark);
      expect(
        (await t.request('GET', '/api/v1/documents?limit=1', { key: created.key })).status,
      ).toBe(401);
    }
  });

  it('keeps the scope check and the organizations apart', async () => {
    const mine = (await t.request('POST', '/api/v1/documents', { body: { name: 'Mine only' } }))
      .body.data;
    const url = '/api/v1/documents?limit=100';
    expect(
      (await t.request('GET', url)).body.data.some((d: { id: string }) => d.id === mine.id),
    ).toBe(true);
    const otherOrg = await t.newOrg('Other');
    const theirs = await t.request('GET', url, { key: otherOrg.key });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    expect(
      (await t.request('GET', `/api/v1/documents/${mine.id}`, { key: otherOrg.key })).status,
    ).toBe(404);
    const writeOnly = await t.keyWith(['documents.create']);
    expect((await t.request('GET', url, { key: writeOnly })).status).toBe(403);
  });
});

describe('PERF_OFF=key-cache', () => {
  it('keeps the keys mark for a PostgreSQL server unless off; none for the CLI or SQLite', async () => {
    const env = {
      DATA_DIR: t.database.dataDir,
      ...(t.database.url ? { DATABASE_URL: t.database.url } : {}),
    };
    const server = openDatabase(loadConfig(env), { server: true });
    const off = openDatabase(loadConfig({ ...env, PERF_OFF: 'key-cache' }), { server: true });
    const cli = openDatabase(loadConfig(env));
    try {
      expect(server.keysMark === undefined).toBe(sqlite);
      expect(off.keysMark).toBeUndefined();
      expect(cli.keysMark).toBeUndefined();
    } finally {
      await Promise.all([server.close(), off.close(), cli.close()]);
    }
  });

  it('refuses a mechanism it does not know', () => {
    expect(() => loadConfig({ PERF_OFF: 'read-cache' })).toThrow();
  });
});
