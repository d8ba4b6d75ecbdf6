import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument, samplePdf } from '../helpers/factories.ts';
import { requestUpload } from '../files/helpers.ts';

/*
 * What a copy of the database alone gives away: not the secrets shown once (a webhook's signing
 * secret, a signing link) kept for Idempotency-Key replays, which are stored encrypted with a key
 * derived from SECRET_KEY; and not the key that signs upload URLs and hashes one-time codes, which
 * is derived from SECRET_KEY too, no longer kept in the database.
 */

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { SECRET_KEY: KEY_A, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
});
afterAll(async () => t.close());

const storedAnswers = async () =>
  (await t.database.handle.db.selectFrom('idempotency_keys').select('response_body').execute())
    .map((r) => r.response_body)
    .join('\n');

describe('answers kept for Idempotency-Key', () => {
  it('are stored encrypted, and replayed in clear', async () => {
    const headers = { 'idempotency-key': 'hook-once' };
    const body = { url: 'http://127.0.0.1:9/in', events: ['document.completed'] };
    const first = await t.request('POST', '/api/v1/webhooks', { body, headers });
    expect(first.status).toBe(201);
    const secret = first.body.data.secret as string;
    expect(secret.length).toBeGreaterThan(20);
    const replay = await t.request('POST', '/api/v1/webhooks', { body, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.secret).toBe(secret);

    const rotated = await t.request(
      'POST',
      `/api/v1/webhooks/${first.body.data.id}/rotate-secret`,
      {
        headers: { 'idempotency-key': 'rotate-once' },
      },
    );
    expect(rotated.status).toBe(200);
    const kept = await storedAnswers();
    expect(kept).not.toContain(secret);
    expect(kept).not.toContain(rotated.body.data.secret);
    expect(kept).not.toContain('"data"');
  });
});

describe('the key of upload URLs and code hashes', () => {
  it('derives from SECRET_KEY: another instance with the same SECRET_KEY takes an upload URL, one with another does not', async () => {
    const ticket = await requestUpload(t, await createDocument(t));
    const path = new URL(ticket.uploadUrl).pathname;
    const pdf = await samplePdf();
    const put = (app: TestApp) =>
      app.app.inject({ method: 'PUT', url: path, headers: ticket.headers, payload: pdf });
    const twin = await buildTestApp({ database: t.database, env: { SECRET_KEY: KEY_A } });
    const stranger = await buildTestApp({ database: t.database, env: { SECRET_KEY: KEY_B } });
    try {
      expect((await put(stranger)).statusCode).toBe(403);
      expect((await put(twin)).statusCode).toBe(200);
    } finally {
      await twin.close();
      await stranger.close();
    }
    const settings = await t.database.handle.db.selectFrom('settings').select('key').execute();
    expect(settings.map((s) => s.key)).not.toContain('server_secret');
  });
});
