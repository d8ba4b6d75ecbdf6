import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { buildTestApp, MemoryMailer, type Reply, type TestApp } from '../helpers/build-test-app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { REDIS_URL, redisReachable } from '../helpers/redis.ts';

function expectRateLimited(res: Reply, limit: number): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    error: { code: 'rate_limited', message: expect.stringMatching(/rate limit/i) },
  });
  expect(res.headers['x-request-id']).toBeTruthy();
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
  expect(res.headers['x-ratelimit-limit']).toBeUndefined();
}

describe('rate limiting, in process', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
  });
  afterAll(async () => t.close());

  it('lets a key make 5 requests a minute, refuses the 6th with 429, and leaves other keys alone', async () => {
    const key = await t.keyWith(['documents.read', 'documents.create']);
    for (let i = 1; i <= 5; i++) {
      const res = await t.request('GET', '/api/v1/documents', { key });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('5');
      expect(res.headers['ratelimit-remaining']).toBe(String(5 - i));
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    expectRateLimited(await t.request('GET', '/api/v1/documents', { key }), 5);
    // The budget is per key, not per route: a create is refused too, and creates nothing.
    const create = await t.request('POST', '/api/v1/documents', { key, body: { name: 'Refused' } });
    expectRateLimited(create, 5);

    const other = await t.keyWith(['documents.read']);
    const res = await t.request('GET', '/api/v1/documents', { key: other });
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe('4');
    expect(res.body.data.map((d: { name: string }) => d.name)).not.toContain('Refused');
  });

  it('counts requests that fail validation', async () => {
    const key = await t.keyWith(['documents.create']);
    for (let i = 0; i < 5; i++) {
      expect(
        (await t.request('POST', '/api/v1/documents', { key, body: { name: '' } })).status,
      ).toBe(400);
    }
    expectRateLimited(
      await t.request('POST', '/api/v1/documents', { key, body: { name: 'ok' } }),
      5,
    );
  });

  it('a fresh window opens after a minute', async () => {
    const key = await t.keyWith(['documents.read']);
    // The plugin keeps its own time (Date.now), so move that rather than the app's clock.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (let i = 0; i < 5; i++)
        expect((await t.request('GET', '/api/v1/documents', { key })).status).toBe(200);
      const refused = await t.request('GET', '/api/v1/documents', { key });
      expect(refused.status).toBe(429);
      vi.setSystemTime(Date.now() + 30_000);
      expect((await t.request('GET', '/api/v1/documents', { key })).status).toBe(429);
      vi.setSystemTime(Date.now() + 31_000);
      const again = await t.request('GET', '/api/v1/documents', { key });
      expect(again.status).toBe(200);
      expect(again.headers['ratelimit-remaining']).toBe('4');
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not limit health, readiness, the OpenAPI document or the docs', async () => {
    for (let i = 0; i < 8; i++) {
      for (const url of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
        const res = await t.request('GET', url, { key: null });
        expect(res.status, url).toBeLessThan(400);
        expect(res.headers['ratelimit-limit'], url).toBeUndefined();
      }
    }
  });
});

describe('rate limiting of routes without an API key', () => {
  it('counts per client address', async () => {
    // Public routes (signing links, uploads) have no key; an app with one such route shows the rule.
    const database = await createTestDatabase();
    const config = loadConfig({
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '3',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    });
    const app = await buildApp({ config, database: database.handle, mailer: new MemoryMailer() });
    app.get('/public-probe', async () => ({ ok: true }));
    try {
      await app.ready();
      const from = (remoteAddress: string) =>
        app.inject({ method: 'GET', url: '/public-probe', remoteAddress });
      for (let i = 0; i < 3; i++) expect((await from('192.0.2.1')).statusCode).toBe(200);
      const refused = await from('192.0.2.1');
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
      expect(refused.headers['retry-after']).toBeTruthy();
      const other = await from('192.0.2.2');
      expect(other.statusCode).toBe(200);
      expect(other.headers['ratelimit-remaining']).toBe('2');
    } finally {
      await app.close();
      await database.drop();
    }
  });
});

describe('rate limiting, RATE_LIMIT_PER_MINUTE=0', () => {
  it('turns limiting off', async () => {
    const t = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    try {
      for (let i = 0; i < 8; i++) {
        const res = await t.request('GET', '/api/v1/documents');
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await t.close();
    }
  });
});

describe('rate limiting shared through Redis', async () => {
  const available = await redisReachable();
  if (!available)
    console.warn(`skipping the Redis rate-limit test: nothing listens on ${REDIS_URL}`);

  it.skipIf(!available)('two instances with one Redis share one budget per key', async () => {
    const env = { RATE_LIMIT_PER_MINUTE: '5', REDIS_URL };
    const a = await buildTestApp({ env });
    const b = await buildTestApp({ env, database: a.database });
    try {
      // The same key on both instances: 3 requests on one, 2 on the other use up the budget.
      for (let i = 0; i < 3; i++)
        expect((await a.request('GET', '/api/v1/documents', { key: a.key })).status).toBe(200);
      for (let i = 0; i < 2; i++)
        expect((await b.request('GET', '/api/v1/documents', { key: a.key })).status).toBe(200);
      expectRateLimited(await a.request('GET', '/api/v1/documents', { key: a.key }), 5);
      expectRateLimited(await b.request('GET', '/api/v1/documents', { key: a.key }), 5);
      // Another key of the same database still has its whole budget, on either instance.
      const other = await b.request('GET', '/api/v1/documents', { key: b.key });
      expect(other.status).toBe(200);
      expect(other.headers['ratelimit-remaining']).toBe('4');
    } finally {
      await b.close();
      await a.close();
    }
  });
});
