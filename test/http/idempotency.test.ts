import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
});
afterAll(async () => t.close());

const DAY_MS = 24 * 60 * 60 * 1000;

/** Documents of an organization whose name is `name`, straight from the database. */
async function countDocuments(orgId: string, name: string): Promise<number> {
  const row = await t.database.handle.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const post = (body: unknown, key: string, apiKey?: string) =>
  t.request('POST', '/api/v1/documents', {
    body,
    key: apiKey,
    headers: { 'idempotency-key': key },
  });

describe('Idempotency-Key on POST', () => {
  it('replays the first response for the same key and body, and creates one resource', async () => {
    const key = randomUUID();
    const name = `Replay ${key}`;
    const first = await post({ name, message: 'hello' }, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const again = await post({ name, message: 'hello' }, key);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['content-type']).toMatch(/^application\/json/);
      expect(again.raw.body).toBe(first.raw.body);
      expect(again.headers['x-request-id']).toBeTruthy();
      expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    }
    expect(await countDocuments(t.orgId, name)).toBe(1);
  });

  it('treats the same JSON with its members in another order as the same body', async () => {
    const key = randomUUID();
    const name = `Order ${key}`;
    const first = await t.request('POST', '/api/v1/documents', {
      body: `{"name":${JSON.stringify(name)},"message":"m","signingType":"parallel"}`,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/api/v1/documents', {
      body: `{"signingType":"parallel","message":"m","name":${JSON.stringify(name)}}`,
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countDocuments(t.orgId, name)).toBe(1);
  });

  it('refuses the same key with a different body or on another endpoint (409 idempotency_conflict)', async () => {
    const key = randomUUID();
    const name = `Conflict ${key}`;
    expect((await post({ name }, key)).status).toBe(201);
    const other = await post({ name, message: 'changed' }, key);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    const id = await createDocument(t, { name: `Other ${key}` });
    const elsewhere = await t.request('POST', `/api/v1/documents/${id}/send`, {
      headers: { 'idempotency-key': key },
    });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error.code).toBe('idempotency_conflict');
    expect(await countDocuments(t.orgId, name)).toBe(1);
  });

  it('accepts keys of 1 to 255 characters and refuses 256 (400)', async () => {
    const unique = randomUUID();
    const max = unique + 'k'.repeat(255 - unique.length);
    expect(max).toHaveLength(255);
    const accepted = await post({ name: `Long key ${unique}` }, max);
    expect(accepted.status).toBe(201);
    expect((await post({ name: `Long key ${unique}` }, max)).headers['idempotent-replayed']).toBe(
      'true',
    );
    const single = await t.newOrg('Single');
    expect((await post({ name: 'One char' }, 'x', single.key)).status).toBe(201);
    const tooLong = await post({ name: 'Too long key' }, `${max}x`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('validation_error');
    expect(tooLong.body.error.details).toEqual([
      { path: 'headers.idempotency-key', message: 'must be 1-255 characters' },
    ]);
    expect(await countDocuments(t.orgId, 'Too long key')).toBe(0);
  });

  it('scopes keys to the API key: the same key in two organizations makes two resources', async () => {
    const other = await t.newOrg('Globex');
    const key = randomUUID();
    const name = `Shared key ${key}`;
    const a = await post({ name }, key);
    const b = await post({ name }, key, other.key);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(await countDocuments(t.orgId, name)).toBe(1);
    expect(await countDocuments(other.orgId, name)).toBe(1);
    // Another key of the same organization never receives the stored response: it makes its own.
    const sameOrgKey = await t.keyWith(['documents.create']);
    const c = await post({ name }, key, sameOrgKey);
    expect(c.status).toBe(201);
    expect(c.headers['idempotent-replayed']).toBeUndefined();
    expect(c.body.data.id).not.toBe(a.body.data.id);
    expect(await countDocuments(t.orgId, name)).toBe(2);
  });

  it('never replays a webhook secret to another key of the organization', async () => {
    const key = randomUUID();
    const body = { url: 'http://127.0.0.1:9/in', events: ['document.completed'] };
    const first = await t.request('POST', '/api/v1/webhooks', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const replay = await t.request('POST', '/api/v1/webhooks', {
      body,
      headers: { 'idempotency-key': key },
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.secret).toBe(first.body.data.secret);
    const colleague = await t.keyWith(['webhooks.create']);
    const other = await t.request('POST', '/api/v1/webhooks', {
      key: colleague,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.data.secret).not.toBe(first.body.data.secret);
    expect(other.body.data.id).not.toBe(first.body.data.id);
  });

  it('replays a 4xx answered by the handler, even once the cause is gone', async () => {
    const key = randomUUID();
    const name = `Past ${key}`;
    const past = new Date(t.clock.now().getTime() - 60_000).toISOString();
    const first = await post({ name, expiresAt: past }, key);
    expect(first.status).toBe(400);
    expect(first.body.error.details).toEqual([
      { path: 'body.expiresAt', message: 'must be in the future' },
    ]);
    const again = await post({ name, expiresAt: past }, key);
    expect(again.status).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.raw.body).toBe(first.raw.body);

    const id = await createDocument(t, { name: `Unsendable ${key}` });
    const sendKey = randomUUID();
    const refused = await t.request('POST', `/api/v1/documents/${id}/send`, {
      headers: { 'idempotency-key': sendKey },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('missing_signers');
    const replayed = await t.request('POST', `/api/v1/documents/${id}/send`, {
      headers: { 'idempotency-key': sendKey },
    });
    expect(replayed.status).toBe(409);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(refused.body);
  });

  it('stores nothing for a body refused by schema validation (the endpoint never ran)', async () => {
    const key = randomUUID();
    const bad = await post({ name: '' }, key);
    expect(bad.status).toBe(400);
    const good = await post({ name: `After bad ${key}` }, key);
    expect(good.status).toBe(201);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
  });

  it('frees the key after 24 hours', async () => {
    const key = randomUUID();
    const name = `Expiring ${key}`;
    const first = await post({ name }, key);
    expect(first.status).toBe(201);
    t.clock.advance(DAY_MS - 60_000);
    const stillReplayed = await post({ name }, key);
    expect(stillReplayed.headers['idempotent-replayed']).toBe('true');
    t.clock.advance(60_001);
    const fresh = await post({ name }, key);
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.data.id).not.toBe(first.body.data.id);
    expect(await countDocuments(t.orgId, name)).toBe(2);
    // The fresh response is now the one replayed, and a different body again conflicts.
    const replay = await post({ name }, key);
    expect(replay.body.data.id).toBe(fresh.body.data.id);
    expect((await post({ name: `${name}!` }, key)).status).toBe(409);
  });

  it('creates one resource when concurrent requests share a key', async () => {
    const key = randomUUID();
    const name = `Concurrent ${key}`;
    const replies = await Promise.all(Array.from({ length: 12 }, () => post({ name }, key)));
    const created = replies.filter((r) => r.status === 201);
    const busy = replies.filter((r) => r.status === 409);
    expect(created.length + busy.length).toBe(replies.length);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1);
    expect(created.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const r of busy) expect(r.body.error.code).toBe('idempotency_in_progress');
    expect(await countDocuments(t.orgId, name)).toBe(1);
    // Once the first finished, a retry gets the stored response.
    const retry = await post({ name }, key);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data.id).toBe(created[0].body.data.id);
  });

  it('ignores the header on GET and does not require it on POST', async () => {
    const key = randomUUID();
    const list = await t.request('GET', '/api/v1/documents', {
      headers: { 'idempotency-key': key },
    });
    expect(list.status).toBe(200);
    expect(list.headers['idempotent-replayed']).toBeUndefined();
    const name = `No key ${key}`;
    expect((await t.request('POST', '/api/v1/documents', { body: { name } })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/documents', { body: { name } })).status).toBe(201);
    expect(await countDocuments(t.orgId, name)).toBe(2);
  });
});
