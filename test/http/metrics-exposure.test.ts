import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

/*
 * /metrics with METRICS_TOKEN: only `Authorization: Bearer <token>` reads it (401 otherwise); and
 * whatever the scrape rate, the queue gauges cost at most one bounded read every 5 seconds.
 */

const TOKEN = 'metrics-token-0123456789abcdef';
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { METRICS_TOKEN: TOKEN } });
});
afterAll(async () => t.close());

const scrape = (authorization?: string) =>
  t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

const depth = (text: string) =>
  Number(/signet_job_queue_depth\{queue="jobs"\} (\d+)/.exec(text)?.[1] ?? Number.NaN);

describe('GET /metrics', () => {
  // First: the first scrape of this app takes the reading the next ones share.
  it('counts a backlog only so far (10,000), and reads the queues at most once per 5 s', async () => {
    const now = new Date(Date.now() - 60_000).toISOString();
    const rows = Array.from({ length: 10_050 }, (_, i) => ({
      id: `job_backlog${String(i).padStart(6, '0')}`,
      kind: 'backlog-test',
      payload: '{}',
      status: 'pending',
      attempts: 0,
      run_at: now,
      leased_until: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await t.database.handle.db
        .insertInto('jobs')
        .values(rows.slice(i, i + 500))
        .execute();
    const first = await scrape(`Bearer ${TOKEN}`);
    expect(depth(first.body)).toBe(10_000);
    expect(first.body).toMatch(/signet_job_oldest_due_age_seconds\{queue="jobs"\} (\d{2,})/);
    await t.database.handle.db.deleteFrom('jobs').where('kind', '=', 'backlog-test').execute();
    // Scrapes right after are answered from the same reading.
    for (let i = 0; i < 5; i++) expect(depth((await scrape(`Bearer ${TOKEN}`)).body)).toBe(10_000);
  });

  it('needs the token when METRICS_TOKEN is set', async () => {
    const none = await scrape();
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('unauthorized');
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await scrape(`Bearer ${TOKEN}x`)).statusCode).toBe(401);
    expect((await scrape(`Bearer ${t.key}`)).statusCode).toBe(401);
    const ok = await scrape(`Bearer ${TOKEN}`);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('signet_process_resident_memory_bytes');
  });
});
