import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';
import { SCOPES } from '../../src/http/auth.ts';
import { ReadCache } from '../../src/http/read-cache.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/server.ts';
import { createApiKey, revokeApiKey } from '../../src/modules/orgs/orgs.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { dialectName } from '../helpers/database.ts';

/*
 * Reads of documents are answered from memory while the database is unchanged. An answer must
 * never be older than the last change through this app, nor, on SQLite, than another connection's
 * commit (another instance or the CLI); on PostgreSQL, than that commit's notification (which
 * these tests wait for: its delivery is the window the change feed admits).
 */

let t: TestApp;
/** A second connection to the same database, as another process would have. */
let other: DbHandle;
const sqlite = dialectName === 'sqlite';

beforeAll(async () => {
  t = await buildTestApp();
  other = createDb({ databaseUrl: t.database.url, sqliteFile: path.join(t.database.dataDir, 'signet.db'), poolSize: 2 });
  await until(() => t.database.handle.changeMark?.() != null);
});
afterAll(async () => {
  await other.close();
  await t.close();
});

async function cacheCount(outcome: 'hit' | 'miss'): Promise<number> {
  const text = String((await t.request('GET', '/metrics', { key: null })).body);
  const m = new RegExp(`signet_read_cache_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text);
  return m ? Number(m[1]) : 0;
}

async function until(ok: () => boolean): Promise<void> {
  for (const end = Date.now() + 3_000; !ok(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * After another connection's write: a request that arrives from the network starts a new turn of
 * the event loop, which on SQLite is all it takes; on PostgreSQL the write's notification must
 * also have come in, i.e. the mark moved.
 */
async function afterOtherWrite(markBefore: string | null | undefined): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (!sqlite) await until(() => t.database.handle.changeMark!() !== markBefore);
}
const markNow = () => t.database.handle.changeMark?.();

describe('read cache', () => {
  it('answers a repeated read from memory, byte for byte, until a write through the API', async () => {
    const doc = (await t.request('POST', '/api/v1/documents', { body: { name: 'Cached' } })).body.data;
    const first = await t.request('GET', `/api/v1/documents/${doc.id}`);
    const hits = await cacheCount('hit');
    const second = await t.request('GET', `/api/v1/documents/${doc.id}`);
    expect(second.status).toBe(200);
    expect(second.raw.body).toBe(first.raw.body);
    expect(String(second.headers['content-type'])).toBe('application/json; charset=utf-8');
    expect(second.headers['x-request-id']).toBeTruthy();
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await cacheCount('hit')).toBe(hits + 1);

    const added = await t.request('POST', `/api/v1/documents/${doc.id}/signers`, { body: { name: 'Ann', email: 'ann@example.test' } });
    expect(added.status).toBe(201);
    const after = await t.request('GET', `/api/v1/documents/${doc.id}`);
    expect(after.body.data.signers.map((s: { name: string }) => s.name)).toEqual(['Ann']);
    expect(after.body.data._count.signers).toBe(1);
    const list = await t.request('GET', '/api/v1/documents?limit=5');
    expect(list.body.data.find((d: { id: string }) => d.id === doc.id)._count.signers).toBe(1);
  });

  it('sees a change committed by another connection on the next request', async () => {
    const doc = (await t.request('POST', '/api/v1/documents', { body: { name: 'Before' } })).body.data;
    await t.request('GET', `/api/v1/documents/${doc.id}`);
    await t.request('GET', '/api/v1/documents?limit=3');
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.name).toBe('Before');

    let mark = markNow();
    await other.db.updateTable('documents').set({ name: 'After', search_name: 'after' }).where('id', '=', doc.id).execute();
    await afterOtherWrite(mark);
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).body.data.name).toBe('After');
    expect((await t.request('GET', '/api/v1/documents?limit=3')).body.data.find((d: { id: string }) => d.id === doc.id).name).toBe('After');

    mark = markNow();
    await other.db.updateTable('documents').set({ deleted_at: new Date().toISOString() }).where('id', '=', doc.id).execute();
    await afterOtherWrite(mark);
    expect((await t.request('GET', `/api/v1/documents/${doc.id}`)).status).toBe(404);
  });

  it('refuses a key at once once it is revoked, here or by another connection (the CLI)', async () => {
    for (const via of [() => t.database.handle.db, () => other.db]) {
      const created = await createApiKey(t.database.handle.db, { orgId: t.orgId, scopes: [...SCOPES] });
      expect((await t.request('GET', '/api/v1/documents?limit=1', { key: created.key })).status).toBe(200);
      expect((await t.request('GET', '/api/v1/documents?limit=1', { key: created.key })).status).toBe(200);
      const mark = markNow();
      expect(await revokeApiKey(via(), created.id)).toBe(true);
      await afterOtherWrite(mark);
      expect((await t.request('GET', '/api/v1/documents?limit=1', { key: created.key })).status).toBe(401);
    }
  });

  it('keeps the scope check and the organizations apart', async () => {
    const mine = (await t.request('POST', '/api/v1/documents', { body: { name: 'Mine only' } })).body.data;
    const url = '/api/v1/documents?limit=100';
    expect((await t.request('GET', url)).body.data.some((d: { id: string }) => d.id === mine.id)).toBe(true);
    const otherOrg = await t.newOrg('Other');
    const theirs = await t.request('GET', url, { key: otherOrg.key });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    expect((await t.request('GET', `/api/v1/documents/${mine.id}`, { key: otherOrg.key })).status).toBe(404);
    const writeOnly = await t.keyWith(['documents.create']);
    expect((await t.request('GET', url, { key: writeOnly })).status).toBe(403);
  });
});

describe('READ_CACHE', () => {
  it('keeps change marks for the server unless off, and opens no change feed for the CLI', async () => {
    const env = { DATA_DIR: t.database.dataDir, ...(t.database.url ? { DATABASE_URL: t.database.url } : {}) };
    const server = openDatabase(loadConfig(env), { server: true });
    const off = openDatabase(loadConfig({ ...env, READ_CACHE: 'off' }), { server: true });
    const cli = openDatabase(loadConfig(env));
    try {
      expect(server.changeMark).toBeTypeOf('function');
      expect(server.keysMark).toBeTypeOf('function');
      expect(off.changeMark).toBeUndefined();
      expect(off.keysMark).toBeUndefined();
      // SQLite's marks cost nothing; a PostgreSQL feed would hold a connection for a short run.
      expect(cli.changeMark === undefined).toBe(!sqlite);
    } finally {
      await Promise.all([server.close(), off.close(), cli.close()]);
    }
  });
});

describe('ReadCache', () => {
  it('serves an entry only under the mark it was made with', () => {
    const cache = new ReadCache();
    cache.set('a', '1:1', '{"x":1}');
    expect(cache.get('a', '1:1')?.toString()).toBe('{"x":1}');
    expect(cache.get('a', '2:1')).toBeUndefined();
    expect(cache.get('a', '1:1')).toBeUndefined(); // retired, not kept for the old mark
  });

  it('drops the oldest entries beyond its bounds', () => {
    const cache = new ReadCache(3, 1000);
    for (const k of ['a', 'b', 'c']) cache.set(k, 'm', k);
    cache.set('d', 'm', 'd');
    expect(cache.size).toBe(3);
    expect(cache.get('a', 'm')).toBeUndefined();
    expect(cache.get('b', 'm')?.toString()).toBe('b');
    cache.set('b', 'm2', 'b2'); // replaced: now the newest
    cache.set('e', 'm', 'e');
    expect(cache.get('c', 'm')).toBeUndefined();
    expect(cache.get('b', 'm2')?.toString()).toBe('b2');
    const bySize = new ReadCache(100, 64 * 16);
    for (let i = 0; i < 40; i++) bySize.set(String(i), 'm', 'x'.repeat(60)); // 60 bytes each
    expect(bySize.size).toBe(17); // 17 × 60 ≤ 1024
    expect(bySize.get('39', 'm')?.toString()).toBe('x'.repeat(60));
    expect(bySize.get('22', 'm')).toBeUndefined();
    bySize.set('big', 'm', 'é'.repeat(40)); // 80 bytes in UTF-8, over a sixteenth of the bound: not kept
    expect(bySize.get('big', 'm')).toBeUndefined();
  });
});
