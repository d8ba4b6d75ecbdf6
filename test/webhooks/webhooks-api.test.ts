import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';
import { EVENT_TYPES } from '../../src/modules/events/event-types.ts';

const ENV = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost' };
// Nothing listens there and no worker runs in this file: deliveries stay pending.
const URL_OK = 'http://127.0.0.1:9/hook';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: ENV });
});
afterAll(async () => t.close());

async function create(body: Record<string, unknown> = {}, key?: string) {
  return t.request('POST', '/api/v1/webhooks', {
    body: { url: URL_OK, events: ['document.completed'], ...body },
    key,
  });
}

async function createOk(body: Record<string, unknown> = {}, key?: string): Promise<string> {
  const res = await create(body, key);
  if (res.status !== 201)
    throw new Error(`create webhook: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

describe('POST /api/v1/webhooks', () => {
  it('creates an active webhook; events is a serialized JSON array and the secret 64 hex characters', async () => {
    const res = await create({
      events: ['document.completed', 'signer.completed'],
      description: 'CRM sync',
    });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(Object.keys(d)).toEqual([
      'id',
      'url',
      'events',
      'status',
      'description',
      'secret',
      'failureCount',
      'createdAt',
    ]);
    expect(d.id).toMatch(/^whk_/);
    expect(typeof d.events).toBe('string');
    expect(JSON.parse(d.events)).toEqual(['document.completed', 'signer.completed']);
    expect(d.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(d).toMatchObject({
      url: URL_OK,
      status: 'active',
      description: 'CRM sync',
      failureCount: 0,
    });
    expect(d.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await t.request('DELETE', `/api/v1/webhooks/${d.id}`);
  });

  it('each webhook gets its own secret; description defaults to null', async () => {
    const a = await create();
    const b = await create();
    expect(a.body.data.secret).not.toBe(b.body.data.secret);
    expect(a.body.data.description).toBeNull();
    for (const r of [a, b]) await t.request('DELETE', `/api/v1/webhooks/${r.body.data.id}`);
  });

  it.each([
    ['url missing', 'body.url', { url: undefined }],
    ['events missing', 'body.events', { events: undefined }],
    ['url not a URL', 'body.url', { url: 'not a url' }],
    ['url ftp', 'body.url', { url: 'ftp://127.0.0.1/x' }],
    ['url javascript', 'body.url', { url: 'javascript:alert(1)' }],
    [
      'url of 2001 characters',
      'body.url',
      { url: `http://127.0.0.1:9/${'a'.repeat(2001 - 'http://127.0.0.1:9/'.length)}` },
    ],
    ['no events', 'body.events', { events: [] }],
    [
      '51 events',
      'body.events',
      { events: Array.from({ length: 51 }, () => 'document.completed') },
    ],
    ['an unknown event', 'body.events.1', { events: ['document.completed', 'document.exploded'] }],
    ['a repeated event', 'body.events', { events: ['document.completed', 'document.completed'] }],
    ['events as a string', 'body.events', { events: '["document.completed"]' }],
    ['description of 501', 'body.description', { description: 'd'.repeat(501) }],
    ['a read-only field', 'body.status', { status: 'inactive' }],
    ['a secret', 'body.secret', { secret: 'f'.repeat(64) }],
  ])('refuses %s (400 at %s)', async (_name, path, body) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('accepts the boundaries: url of 2000, description of 500 and null, every known event type', async () => {
    const url = `http://127.0.0.1:9/${'a'.repeat(2000 - 'http://127.0.0.1:9/'.length)}`;
    expect(url.length).toBe(2000);
    const long = await create({ url, description: 'd'.repeat(500) });
    expect(long.status).toBe(201);
    expect(long.body.data.url).toBe(url);
    const all = await create({ events: [...EVENT_TYPES], description: null });
    expect(all.status).toBe(201);
    expect(JSON.parse(all.body.data.events)).toEqual([...EVENT_TYPES]);
    for (const r of [long, all]) await t.request('DELETE', `/api/v1/webhooks/${r.body.data.id}`);
  });

  it('allows 10 webhooks per organization; the 11th is 409 limit_reached, and deleting one frees a place', async () => {
    const org = await t.newOrg('Limits');
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await createOk({}, org.key));
    const eleventh = await create({}, org.key);
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.error.code).toBe('limit_reached');
    // Other organizations are not affected.
    const other = await t.newOrg('Other');
    expect((await create({}, other.key)).status).toBe(201);
    expect((await t.request('DELETE', `/api/v1/webhooks/${ids[0]}`, { key: org.key })).status).toBe(
      204,
    );
    expect((await create({}, org.key)).status).toBe(201);
  });

  it('never exceeds 10 under concurrent registrations', async () => {
    const org = await t.newOrg('Race');
    await createOk({}, org.key);
    const results = await Promise.all(Array.from({ length: 15 }, () => create({}, org.key)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(9);
    expect(statuses.filter((s) => s === 409)).toHaveLength(6);
    const list = await t.request('GET', '/api/v1/webhooks?limit=100', { key: org.key });
    expect(list.body.data).toHaveLength(10);
  });

  it('requires HTTPS when NODE_ENV is production', async () => {
    const prod = await buildTestApp({
      env: { ...ENV, NODE_ENV: 'production', SECRET_KEY: 'y'.repeat(64) },
      database: t.database,
    });
    try {
      const http = await prod.request('POST', '/api/v1/webhooks', {
        body: { url: URL_OK, events: ['document.completed'] },
      });
      expect(http.status).toBe(400);
      expect(http.body.error.details).toEqual([{ path: 'body.url', message: 'must use https' }]);
      const https = await prod.request('POST', '/api/v1/webhooks', {
        body: { url: 'https://127.0.0.1:9/hook', events: ['document.completed'] },
      });
      expect(https.status).toBe(201);
      const patch = await prod.request('PATCH', `/api/v1/webhooks/${https.body.data.id}`, {
        body: { url: URL_OK },
      });
      expect(patch.status).toBe(400);
      expect(patch.body.error.details[0].path).toBe('body.url');
    } finally {
      await prod.close();
    }
  });
});

describe('GET /api/v1/webhooks and /api/v1/webhooks/{id}', () => {
  let org: { orgId: string; key: string };
  const ids: string[] = [];
  beforeAll(async () => {
    org = await t.newOrg('Lister');
    for (let i = 0; i < 5; i++) ids.push(await createOk({ description: `hook ${i}` }, org.key));
    await t.request('PATCH', `/api/v1/webhooks/${ids[1]}`, {
      key: org.key,
      body: { status: 'inactive' },
    });
  });

  it('gets a webhook without its secret and with events as an array', async () => {
    const res = await t.request('GET', `/api/v1/webhooks/${ids[0]}`, { key: org.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual([
      'id',
      'url',
      'events',
      'status',
      'description',
      'failureCount',
      'createdAt',
    ]);
    expect(res.body.data).toMatchObject({
      id: ids[0],
      events: ['document.completed'],
      status: 'active',
      description: 'hook 0',
      failureCount: 0,
    });
    expect(res.raw.body).not.toMatch(/secret/);
  });

  it('lists newest first with cursor pagination and never shows secrets', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.request(
        'GET',
        `/api/v1/webhooks?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { key: org.key },
      );
      expect(res.status).toBe(200);
      expect(res.raw.body).not.toMatch(/secret/);
      expect(res.body.meta.count).toBe(res.body.data.length);
      seen.push(...res.body.data.map((w: { id: string }) => w.id));
      cursor = res.body.meta.nextCursor;
      if (!res.body.meta.hasMore) expect(cursor).toBeNull();
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it('filters by status and refuses unknown filters and foreign cursors', async () => {
    const inactive = await t.request('GET', '/api/v1/webhooks?status=inactive', { key: org.key });
    expect(inactive.body.data.map((w: { id: string }) => w.id)).toEqual([ids[1]]);
    const active = await t.request('GET', '/api/v1/webhooks?status=active', { key: org.key });
    expect(active.body.data).toHaveLength(4);
    expect(
      (await t.request('GET', '/api/v1/webhooks?status=paused', { key: org.key })).status,
    ).toBe(400);
    expect((await t.request('GET', '/api/v1/webhooks?limit=0', { key: org.key })).status).toBe(400);
    expect((await t.request('GET', '/api/v1/webhooks?limit=101', { key: org.key })).status).toBe(
      400,
    );
    const docs = await t.request('GET', '/api/v1/documents?limit=1');
    await createDocument(t);
    await createDocument(t);
    const docCursor = (await t.request('GET', '/api/v1/documents?limit=1')).body.meta.nextCursor;
    expect(docs.status).toBe(200);
    const bad = await t.request('GET', `/api/v1/webhooks?cursor=${docCursor}`, { key: org.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_cursor');
  });
});

describe('PATCH /api/v1/webhooks/{id}', () => {
  it('changes url, events, description and status; answers without secret, events as an array', async () => {
    const id = await createOk({ description: 'old' });
    const res = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      body: {
        url: 'http://localhost:9/new',
        events: ['signer.completed', 'document.declined'],
        description: null,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      url: 'http://localhost:9/new',
      events: ['signer.completed', 'document.declined'],
      description: null,
      status: 'active',
    });
    expect(res.body.data.secret).toBeUndefined();
    const off = await t.request('PATCH', `/api/v1/webhooks/${id}`, {
      body: { status: 'inactive' },
    });
    expect(off.body.data.status).toBe('inactive');
    const on = await t.request('PATCH', `/api/v1/webhooks/${id}`, { body: { status: 'active' } });
    expect(on.body.data).toMatchObject({ status: 'active', failureCount: 0 });
    expect((await t.request('GET', `/api/v1/webhooks/${id}`)).body.data.url).toBe(
      'http://localhost:9/new',
    );
    await t.request('DELETE', `/api/v1/webhooks/${id}`);
  });

  it('validates like create', async () => {
    const id = await createOk();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body'],
      [{ url: 'http://10.0.0.1/x' }, 'body.url'],
      [{ events: [] }, 'body.events'],
      [{ events: ['nope'] }, 'body.events.0'],
      [{ status: 'paused' }, 'body.status'],
      [{ description: 'x'.repeat(501) }, 'body.description'],
      [{ secret: 'a'.repeat(64) }, 'body.secret'],
      [{ failureCount: 0 }, 'body.failureCount'],
    ];
    for (const [body, path] of cases) {
      const res = await t.request('PATCH', `/api/v1/webhooks/${id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details?.[0]?.path ?? 'body', JSON.stringify(body)).toBe(path);
    }
    await t.request('DELETE', `/api/v1/webhooks/${id}`);
  });

  it('deactivation holds pending deliveries (kept, not dropped); new events skip the inactive webhook; reactivation makes them due', async () => {
    const id = await createOk({ events: ['document.created'] });
    await createDocument(t);
    const before = await t.request('GET', `/api/v1/webhooks/${id}/deliveries`);
    expect(before.body.data.map((d: { status: string }) => d.status)).toEqual(['pending']);
    // A delivery waiting for a later retry, to see reactivation bring it forward.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await t.database.handle.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: later })
      .where('webhook_id', '=', id)
      .execute();
    await t.request('PATCH', `/api/v1/webhooks/${id}`, { body: { status: 'inactive' } });
    await createDocument(t);
    const after = await t.request('GET', `/api/v1/webhooks/${id}/deliveries`);
    expect(after.body.data.map((d: { status: string }) => d.status)).toEqual(['pending']);
    await t.request('PATCH', `/api/v1/webhooks/${id}`, { body: { status: 'active' } });
    const rows = await t.database.handle.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'next_attempt_at'])
      .where('webhook_id', '=', id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('pending');
    expect(rows[0]!.next_attempt_at! < later).toBe(true);
    await t.request('DELETE', `/api/v1/webhooks/${id}`);
  });
});

describe('DELETE /api/v1/webhooks/{id}', () => {
  it('answers 204 with an empty body, cancels pending deliveries, and the webhook is gone', async () => {
    const id = await createOk({ events: ['document.created'] });
    await createDocument(t);
    const res = await t.request('DELETE', `/api/v1/webhooks/${id}`);
    expect(res.status).toBe(204);
    expect(res.raw.body).toBe('');
    expect((await t.request('GET', `/api/v1/webhooks/${id}`)).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/webhooks/${id}`)).status).toBe(404);
    const rows = await t.database.handle.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('webhook_id', '=', id)
      .execute();
    expect(rows.map((r) => r.status)).toEqual(['cancelled']);
  });
});

describe('POST /api/v1/webhooks/{id}/rotate-secret', () => {
  it('returns a new secret once; reads never show it', async () => {
    const created = await create();
    const id = created.body.data.id;
    const res = await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, events: ['document.completed'], status: 'active' });
    expect(res.body.data.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.data.secret).not.toBe(created.body.data.secret);
    expect((await t.request('GET', `/api/v1/webhooks/${id}`)).raw.body).not.toContain(
      res.body.data.secret,
    );
    await t.request('DELETE', `/api/v1/webhooks/${id}`);
  });
});

describe('test and retry endpoints', () => {
  it('test queues a webhook.test delivery for this webhook only, even when not subscribed', async () => {
    const a = await createOk({ events: ['document.completed'] });
    const b = await createOk({ events: ['webhook.test'] });
    const res = await t.request('POST', `/api/v1/webhooks/${a}/test`);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      event: 'webhook.test',
      status: 'pending',
      attemptCount: 0,
      attempts: [],
    });
    expect(res.body.data.id).toMatch(/^dlv_/);
    expect((await t.request('GET', `/api/v1/webhooks/${b}/deliveries`)).body.data).toEqual([]);
    const retry = await t.request(
      'POST',
      `/api/v1/webhooks/${a}/deliveries/${res.body.data.id}/retry`,
    );
    expect(retry.status).toBe(202);
    expect(retry.body.data).toMatchObject({ id: res.body.data.id, status: 'pending' });
    expect(
      (await t.request('POST', `/api/v1/webhooks/${a}/deliveries/dlv_nope/retry`)).status,
    ).toBe(404);
    // A delivery of another webhook is not found under this one.
    expect(
      (await t.request('POST', `/api/v1/webhooks/${b}/deliveries/${res.body.data.id}/retry`))
        .status,
    ).toBe(404);
    await t.request('PATCH', `/api/v1/webhooks/${a}`, { body: { status: 'inactive' } });
    const inactiveTest = await t.request('POST', `/api/v1/webhooks/${a}/test`);
    expect(inactiveTest.status).toBe(409);
    expect(inactiveTest.body.error.code).toBe('invalid_state');
    expect(
      (await t.request('POST', `/api/v1/webhooks/${a}/deliveries/${res.body.data.id}/retry`))
        .status,
    ).toBe(409);
    for (const id of [a, b]) await t.request('DELETE', `/api/v1/webhooks/${id}`);
  });
});

describe('scopes and organizations', () => {
  const endpoints = (id: string, dlv: string): [string, string, string, unknown?][] => [
    [
      'POST',
      '/api/v1/webhooks',
      'webhooks.create',
      { url: URL_OK, events: ['document.completed'] },
    ],
    ['GET', '/api/v1/webhooks', 'webhooks.read'],
    ['GET', `/api/v1/webhooks/${id}`, 'webhooks.read'],
    ['PATCH', `/api/v1/webhooks/${id}`, 'webhooks.update', { description: 'x' }],
    ['GET', `/api/v1/webhooks/${id}/deliveries`, 'webhooks.read'],
    ['POST', `/api/v1/webhooks/${id}/deliveries/${dlv}/retry`, 'webhooks.update'],
    ['POST', `/api/v1/webhooks/${id}/test`, 'webhooks.update'],
    ['POST', `/api/v1/webhooks/${id}/rotate-secret`, 'webhooks.update'],
    ['DELETE', `/api/v1/webhooks/${id}`, 'webhooks.delete'],
  ];
  const ALL = ['webhooks.create', 'webhooks.read', 'webhooks.update', 'webhooks.delete'];

  it('every endpoint needs its own scope (403 insufficient_scope) and a key (401)', async () => {
    const id = await createOk();
    const dlv = (await t.request('POST', `/api/v1/webhooks/${id}/test`)).body.data.id;
    for (const [method, url, scope, body] of endpoints(id, dlv)) {
      const without = await t.keyWith([...ALL.filter((s) => s !== scope), 'documents.read']);
      const res = await t.request(method, url, { key: without, body });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'insufficient_scope',
        details: [{ requiredScope: scope }],
      });
      expect((await t.request(method, url, { key: null, body })).status, `${method} ${url}`).toBe(
        401,
      );
    }
    for (const [method, url, scope, body] of endpoints(id, dlv)) {
      const only = await t.keyWith([scope]);
      const res = await t.request(method, url, { key: only, body });
      expect([200, 201, 202, 204], `${method} ${url}: ${JSON.stringify(res.body)}`).toContain(
        res.status,
      );
      if (method === 'POST' && url === '/api/v1/webhooks')
        await t.request('DELETE', `/api/v1/webhooks/${res.body.data.id}`);
    }
  });

  it("another organization's webhook is 404 on every endpoint, and untouched", async () => {
    const id = await createOk();
    const dlv = (await t.request('POST', `/api/v1/webhooks/${id}/test`)).body.data.id;
    const other = await t.newOrg('Intruder');
    for (const [method, url, , body] of endpoints(id, dlv).slice(2)) {
      const res = await t.request(method, url, { key: other.key, body });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await t.request('GET', '/api/v1/webhooks', { key: other.key })).body.data).toEqual([]);
    const mine = await t.request('GET', `/api/v1/webhooks/${id}`);
    expect(mine.body.data).toMatchObject({ status: 'active', description: null });
    await t.request('DELETE', `/api/v1/webhooks/${id}`);
  });
});

describe('OpenAPI', () => {
  it('documents every webhook endpoint with its schemas', async () => {
    const doc = (await t.request('GET', '/openapi.json', { key: null })).body;
    const ops = [
      'createWebhook',
      'listWebhooks',
      'getWebhook',
      'updateWebhook',
      'deleteWebhook',
      'listWebhookDeliveries',
      'retryWebhookDelivery',
      'testWebhook',
      'rotateWebhookSecret',
    ];
    const found = Object.values(
      doc.paths as Record<string, Record<string, { operationId?: string }>>,
    ).flatMap((p) => Object.values(p).map((o) => o.operationId));
    for (const op of ops) expect(found).toContain(op);
    const create = doc.paths['/api/v1/webhooks'].post;
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '409']),
    );
  });
});
