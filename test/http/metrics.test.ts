import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { dialectName } from '../helpers/database.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('GET /metrics', () => {
  it('exposes request durations by route pattern and status, and queue depth', async () => {
    await t.request('POST', '/api/v1/documents', { body: { name: 'Metered' } });
    await t.request('GET', '/api/v1/documents/doc_missing');
    const res = await t.request('GET', '/metrics', { key: null });
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toContain('text/plain');
    const text = String(res.body);
    expect(text).toMatch(
      /signet_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/documents",status="201"\} 1/,
    );
    expect(text).toMatch(
      /signet_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/documents\/:id",status="404"\} 1/,
    );
    expect(text).not.toContain('doc_missing');
    expect(text).toMatch(/signet_job_queue_depth\{queue="jobs"\} \d+/);
    expect(text).toMatch(/signet_job_oldest_due_age_seconds\{queue="webhook_deliveries"\} 0/);
    expect(text).toContain('signet_process_resident_memory_bytes');
    if (dialectName === 'sqlite') {
      expect(text).not.toContain('signet_pg_creates_total');
    } else {
      // The create above went through the batched insert.
      expect(Number(/signet_pg_creates_total (\d+)/.exec(text)?.[1])).toBe(1);
      expect(Number(/signet_pg_create_statements_total (\d+)/.exec(text)?.[1])).toBe(1);
    }
  });
});
