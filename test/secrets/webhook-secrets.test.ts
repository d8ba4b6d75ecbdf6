import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { prepareWebhookSecrets } from '../../src/modules/webhooks/webhook-secrets.ts';
import { deriveKey, loadSecretKey } from '../../src/secret-key.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import {
  startReceiver,
  verifyServiceSignature,
  waitFor,
  type Receiver,
} from '../webhooks/support.ts';

/*
 * Webhook secrets are encrypted at rest with a key derived from SECRET_KEY: the database alone
 * does not hold them. Deliveries are still signed with the plaintext, rotation still works, and
 * secrets stored in plain text by an earlier version are encrypted on the next start.
 */

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await buildTestApp({
    env: {
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '50ms',
      SECRET_KEY: 'k'.repeat(64),
    },
  });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const stored = async (id: string) =>
  (
    await t.database.handle.db
      .selectFrom('webhooks')
      .select('secret')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).secret;

describe('webhook secrets at rest', () => {
  it('are stored encrypted; deliveries are signed with the plaintext, before and after rotation', async () => {
    const created = await t.request('POST', '/api/v1/webhooks', {
      body: { url: receiver.url, events: ['webhook.test'] },
    });
    const { id, secret } = created.body.data;
    const atRest = await stored(id);
    expect(atRest).toMatch(/^enc:v1:/);
    expect(atRest).not.toContain(secret);

    await t.request('POST', `/api/v1/webhooks/${id}/test`);
    await t.app.deliveries.drain();
    const first = await waitFor(() => receiver.received[0], 'the test delivery');
    expect(verifyServiceSignature(secret, first.headers, first.body)).toBe(true);

    const rotated = (await t.request('POST', `/api/v1/webhooks/${id}/rotate-secret`)).body.data
      .secret;
    expect(rotated).not.toBe(secret);
    expect(await stored(id)).not.toContain(rotated);
    await t.request('POST', `/api/v1/webhooks/${id}/test`);
    await t.app.deliveries.drain();
    const second = await waitFor(() => receiver.received[1], 'the second delivery');
    expect(verifyServiceSignature(rotated, second.headers, second.body)).toBe(true);
    expect(verifyServiceSignature(secret, second.headers, second.body)).toBe(false);
  });

  it('a plaintext secret from an earlier version is encrypted on the next start and still signs', async () => {
    const created = await t.request('POST', '/api/v1/webhooks', {
      body: { url: receiver.url, events: ['webhook.test'] },
    });
    const { id } = created.body.data;
    const legacy = 'a'.repeat(64);
    await t.database.handle.db
      .updateTable('webhooks')
      .set({ secret: legacy })
      .where('id', '=', id)
      .execute();
    const config = loadConfig({
      DATA_DIR: t.database.dataDir,
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      SECRET_KEY: 'k'.repeat(64),
      ...(t.database.url ? { DATABASE_URL: t.database.url } : {}),
    });
    const restarted = await buildApp({ config, database: t.database.handle, clock: t.clock });
    try {
      // Building the app writes nothing; the start-up step of server.ts seals the secret.
      expect(await stored(id)).toBe(legacy);
      const key = deriveKey(await loadSecretKey(config), 'webhook-secrets');
      await prepareWebhookSecrets(t.database.handle.db, key);
      const atRest = await stored(id);
      expect(atRest).toMatch(/^enc:v1:/);
      expect(atRest).not.toContain(legacy);
      const before = receiver.received.length;
      await t.request('POST', `/api/v1/webhooks/${id}/test`);
      await restarted.deliveries.drain();
      const got = await waitFor(() => receiver.received[before], 'the delivery');
      expect(verifyServiceSignature(legacy, got.headers, got.body)).toBe(true);
    } finally {
      await restarted.close();
    }
  });
});

describe('SECRET_KEY', () => {
  it('is required in production, generated once into DATA_DIR (0600) in development', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'signet-key-'));
    try {
      await expect(
        loadSecretKey({ secretKey: undefined, production: true, dataDir: dir }),
      ).rejects.toThrow(/SECRET_KEY is required in production/);
      const [a, b] = await Promise.all([
        loadSecretKey({ secretKey: undefined, production: false, dataDir: dir }),
        loadSecretKey({ secretKey: undefined, production: false, dataDir: dir }),
      ]);
      expect(a.equals(b)).toBe(true);
      expect(a.length).toBeGreaterThanOrEqual(32);
      expect((await stat(path.join(dir, 'secret.key'))).mode & 0o777).toBe(0o600);
      expect((await readFile(path.join(dir, 'secret.key'), 'utf8')).trim()).toBe(
        a.toString('utf8'),
      );
      expect(() => loadConfig({ SECRET_KEY: 'short' })).toThrow(/SECRET_KEY/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
