import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';
import {
  startReceiver,
  verifyServiceSignature,
  verifyStandardSignature,
  waitFor,
  sleep,
  type Receiver,
  type Respond,
} from './support.ts';

const SCHEDULE = [80, 120, 160, 200];
let t: TestApp;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await buildTestApp({
    env: {
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE.map((ms) => `${ms}ms`).join(','),
      WEBHOOK_TIMEOUT_MS: '300',
    },
  });
  t.app.deliveries.start();
});
afterAll(async () => {
  await t.app.deliveries.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

/** Every request any receiver of this file got, with whether both signatures verified. */
const checked: { ok: boolean; deliveryId: string }[] = [];

/** Makes `receiver` verify each request against the webhook's secrets (current or earlier) before answering. */
function verifying(receiver: Receiver, secrets: string[]) {
  const respond = receiver.respond;
  receiver.respond = (req, i) => {
    const ok = secrets.some(
      (s) =>
        verifyServiceSignature(s, req.headers, req.body) &&
        verifyStandardSignature(s, req.headers, req.body),
    );
    checked.push({ ok, deliveryId: String(req.headers['x-service-delivery-id']) });
    return respond(req, i);
  };
}

/** A fresh organization with a receiver and one webhook pointing at it. */
async function setup(
  respond?: Respond,
  events = ['document.created'],
  url?: (r: Receiver) => string,
) {
  const org = await t.newOrg('Receiver Co');
  const receiver = await startReceiver(respond);
  receivers.push(receiver);
  const secrets: string[] = [];
  verifying(receiver, secrets);
  const res = await t.request('POST', '/api/v1/webhooks', {
    key: org.key,
    body: { url: url ? url(receiver) : receiver.url, events },
  });
  expect(res.status).toBe(201);
  const webhook = {
    id: res.body.data.id as string,
    secret: res.body.data.secret as string,
    secrets,
  };
  secrets.push(webhook.secret);
  const deliveries = async () =>
    (await t.request('GET', `/api/v1/webhooks/${webhook.id}/deliveries`, { key: org.key })).body
      .data;
  const hook = async () =>
    (await t.request('GET', `/api/v1/webhooks/${webhook.id}`, { key: org.key })).body.data;
  return { org, receiver, webhook, deliveries, hook };
}

describe('a delivery on the wire', () => {
  it('is a signed POST of the envelope with every documented and Standard Webhooks header', async () => {
    const { org, receiver, webhook, deliveries, hook } = await setup();
    const docId = await createDocument(t, { name: 'Wire check' }, org.key);
    await waitFor(() => receiver.received.length === 1, 'the delivery');
    const got = receiver.received[0];
    const envelope = JSON.parse(got.body);

    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook');
    expect(Object.keys(envelope)).toEqual(['id', 'event', 'api_version', 'created_at', 'data']);
    expect(envelope.id).toMatch(/^dlv_/);
    expect(envelope).toMatchObject({ event: 'document.created', api_version: '2026-11-21' });
    expect(envelope.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const listed = (await t.request('GET', '/api/v1/documents', { key: org.key })).body.data.find(
      (d: { id: string }) => d.id === docId,
    );
    expect(envelope.data).toEqual(listed);

    const h = got.headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['user-agent']).toBe('Signet-Webhooks/1.0');
    expect(h['x-service-event']).toBe('document.created');
    expect(h['x-service-delivery-id']).toBe(envelope.id);
    expect(h['webhook-id']).toBe(envelope.id);
    expect(h['x-service-timestamp']).toMatch(/^\d{10}$/);
    expect(h['webhook-timestamp']).toBe(h['x-service-timestamp']);
    expect(Math.abs(Number(h['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    expect(h['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

    // Independent verification of both schemes, and the failure of a tampered body.
    expect(verifyServiceSignature(webhook.secret, h, got.body)).toBe(true);
    expect(verifyStandardSignature(webhook.secret, h, got.body)).toBe(true);
    const tampered = got.body.replace('Wire check', 'Wire cheque');
    expect(verifyServiceSignature(webhook.secret, h, tampered)).toBe(false);
    expect(verifyStandardSignature(webhook.secret, h, tampered)).toBe(false);
    expect(verifyServiceSignature('0'.repeat(64), h, got.body)).toBe(false);

    // The Standard Webhooks library: the secret string is the raw key (format "raw"), or pass it base64-encoded.
    const headers = h as Record<string, string>;
    expect(new Webhook(webhook.secret, { format: 'raw' }).verify(got.body, headers)).toEqual(
      envelope,
    );
    expect(
      new Webhook(Buffer.from(webhook.secret).toString('base64')).verify(got.body, headers),
    ).toEqual(envelope);
    expect(() => new Webhook(webhook.secret).verify(got.body, headers)).toThrow(
      /No matching signature/,
    );
    expect(() =>
      new Webhook(webhook.secret, { format: 'raw' }).verify(tampered, headers),
    ).toThrow();

    // The receiver recipe of docs/webhooks.md, run as published.
    const doc = fs.readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    const recipe = /<!-- recipe[^>]*-->\s*```js\n([\s\S]*?)```/.exec(doc)![1];
    const file = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'signet-recipe-')),
      'verify-signet.mjs',
    );
    fs.writeFileSync(file, recipe);
    const { verifySignet } = await import(pathToFileURL(file).href);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    expect(verifySignet(webhook.secret, h, got.body)).toBe(true);
    expect(verifySignet(webhook.secret, h, tampered)).toBe(false);
    // The shorter recipe of the README: verify, then deduplicate on the delivery id.
    const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const short = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'signet-recipe-')), 'accept.mjs');
    fs.writeFileSync(short, /<!-- recipe[^>]*-->\s*```js\n([\s\S]*?)```/.exec(readme)![1]);
    const { accept } = await import(pathToFileURL(short).href);
    fs.rmSync(path.dirname(short), { recursive: true, force: true });
    expect(accept(webhook.secret, h, tampered)).toBe(false);
    expect(accept(webhook.secret, h, got.body)).toBe(true);
    expect(accept(webhook.secret, h, got.body)).toBe('duplicate');

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 6 * 60_000 });
    try {
      expect(verifySignet(webhook.secret, h, got.body)).toBe(false); // replayed 6 minutes later
      expect(accept(webhook.secret, h, got.body)).toBe(false);
    } finally {
      vi.useRealTimers();
    }

    await waitFor(
      async () => (await deliveries())[0]?.status === 'succeeded',
      'the delivery to be recorded',
    );
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({
      id: envelope.id,
      event: 'document.created',
      status: 'succeeded',
      attemptCount: 1,
      nextAttemptAt: null,
      lastStatusCode: 200,
    });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({
      statusCode: 200,
      error: null,
      responseBody: 'ok',
    });
    expect(delivery.attempts[0].durationMs).toBeGreaterThanOrEqual(0);
    expect((await hook()).failureCount).toBe(0);
  });

  it('retries a receiver that fails N times: exactly N+1 attempts, one delivery id, spaced by the schedule', async () => {
    const N = 3;
    const { org, receiver, deliveries, hook } = await setup((_req, i) =>
      i < N ? { status: 500, body: `boom ${i}` } : { status: 204 },
    );
    await createDocument(t, {}, org.key);
    await waitFor(
      async () => (await deliveries())[0]?.status === 'succeeded',
      'the delivery to succeed',
    );
    await sleep(300);
    expect(receiver.received).toHaveLength(N + 1);
    const ids = new Set(receiver.received.map((r) => r.headers['x-service-delivery-id']));
    expect(ids.size).toBe(1);
    const bodies = new Set(receiver.received.map((r) => r.body));
    expect(bodies.size).toBe(1); // same envelope, byte for byte, on every retry
    for (let i = 1; i <= N; i++) {
      expect(receiver.received[i].at - receiver.received[i - 1].at).toBeGreaterThanOrEqual(
        SCHEDULE[i - 1],
      );
    }
    const [delivery] = await deliveries();
    expect(delivery.attemptCount).toBe(N + 1);
    expect(delivery.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([
      500, 500, 500, 204,
    ]);
    expect(delivery.attempts.map((a: { error: string | null }) => a.error)).toEqual([
      'HTTP 500',
      'HTTP 500',
      'HTTP 500',
      null,
    ]);
    expect(delivery.attempts[1].responseBody).toBe('boom 1');
    expect((await hook()).failureCount).toBe(0);
  });

  it('gives up after the last retry (failed); a manual retry sends the same delivery again', async () => {
    let up = false;
    const { org, receiver, webhook, deliveries, hook } = await setup(() =>
      up ? { status: 200 } : { status: 503 },
    );
    await createDocument(t, {}, org.key);
    await waitFor(
      async () => (await deliveries())[0]?.status === 'failed',
      'retries to run out',
      10_000,
    );
    expect(receiver.received).toHaveLength(SCHEDULE.length + 1);
    let [delivery] = await deliveries();
    expect(delivery).toMatchObject({
      status: 'failed',
      attemptCount: SCHEDULE.length + 1,
      nextAttemptAt: null,
      lastStatusCode: 503,
    });
    expect((await hook()).failureCount).toBe(SCHEDULE.length + 1);

    up = true;
    const retry = await t.request(
      'POST',
      `/api/v1/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`,
      { key: org.key },
    );
    expect(retry.status).toBe(202);
    expect(retry.body.data).toMatchObject({ id: delivery.id, status: 'pending' });
    await waitFor(async () => (await deliveries())[0]?.status === 'succeeded', 'the manual retry');
    [delivery] = await deliveries();
    expect(delivery.attempts).toHaveLength(SCHEDULE.length + 2);
    expect(receiver.received.at(-1)!.headers['x-service-delivery-id']).toBe(delivery.id);
    expect((await hook()).failureCount).toBe(0);
  });

  it('ends an attempt that gets no answer at the timeout', async () => {
    const { org, receiver, webhook, deliveries } = await setup(() => 'hang');
    await createDocument(t, {}, org.key);
    await waitFor(async () => (await deliveries())[0]?.attempts.length >= 1, 'the first attempt');
    const [delivery] = await deliveries();
    const attempt = delivery.attempts[0];
    expect(attempt).toMatchObject({
      statusCode: null,
      error: 'Timed out after 300 ms',
      responseBody: null,
    });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(290);
    expect(attempt.durationMs).toBeLessThan(2500); // ended by the timeout, not by the receiver
    expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    await t.request('DELETE', `/api/v1/webhooks/${webhook.id}`, { key: org.key });
  });

  it('never follows a redirect (to a private address here): the 3xx is a failure', async () => {
    const target = await startReceiver();
    receivers.push(target);
    const { org, webhook, deliveries } = await setup(() => ({
      status: 302,
      headers: { location: `http://127.0.0.1:${target.port}/internal` },
    }));
    await createDocument(t, {}, org.key);
    await waitFor(async () => (await deliveries())[0]?.attempts.length >= 1, 'the first attempt');
    const [delivery] = await deliveries();
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({ statusCode: 302 });
    expect(delivery.attempts[0].error).toMatch(/^Redirect \(HTTP 302\) not followed/);
    expect(target.received).toHaveLength(0);
    await t.request('DELETE', `/api/v1/webhooks/${webhook.id}`, { key: org.key });
  });

  it('records a refused connection and keeps only the first 1 KB of a response body', async () => {
    const closed = await startReceiver();
    await closed.close();
    const refused = await setup(undefined, ['document.created'], () => closed.url);
    const big = await setup(() => ({ status: 400, body: 'x'.repeat(5000) }));
    await createDocument(t, {}, refused.org.key);
    await createDocument(t, {}, big.org.key);
    await waitFor(
      async () => (await refused.deliveries())[0]?.attempts.length >= 1,
      'the refused attempt',
    );
    await waitFor(async () => (await big.deliveries())[0]?.attempts.length >= 1, 'the 400 attempt');
    expect((await refused.deliveries())[0].attempts[0]).toMatchObject({
      statusCode: null,
      error: 'Connection refused',
    });
    const bigAttempt = (await big.deliveries())[0].attempts[0];
    expect(bigAttempt).toMatchObject({ statusCode: 400, error: 'HTTP 400' });
    expect(bigAttempt.responseBody).toBe('x'.repeat(1024));
    for (const s of [refused, big])
      await t.request('DELETE', `/api/v1/webhooks/${s.webhook.id}`, { key: s.org.key });
  });
});

describe('what gets delivered', () => {
  it('only subscribed events, nothing to an inactive webhook, webhook.test on demand, signed with the current secret', async () => {
    const { org, receiver, webhook } = await setup(undefined, ['document.deleted']);
    const docId = await createDocument(t, {}, org.key); // document.created: not subscribed
    await t.request('DELETE', `/api/v1/documents/${docId}`, { key: org.key });
    await waitFor(() => receiver.received.length === 1, 'document.deleted');
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({
      event: 'document.deleted',
      data: { id: docId },
    });

    const test = await t.request('POST', `/api/v1/webhooks/${webhook.id}/test`, { key: org.key });
    await waitFor(() => receiver.received.length === 2, 'webhook.test');
    const testEnvelope = JSON.parse(receiver.received[1].body);
    expect(testEnvelope).toMatchObject({
      id: test.body.data.id,
      event: 'webhook.test',
      data: { webhookId: webhook.id },
    });
    expect(receiver.received[1].headers['x-service-event']).toBe('webhook.test');

    const rotated = await t.request('POST', `/api/v1/webhooks/${webhook.id}/rotate-secret`, {
      key: org.key,
    });
    webhook.secrets.push(rotated.body.data.secret);
    await t.request('POST', `/api/v1/webhooks/${webhook.id}/test`, { key: org.key });
    await waitFor(() => receiver.received.length === 3, 'the test after rotation');
    const after = receiver.received[2];
    expect(verifyServiceSignature(rotated.body.data.secret, after.headers, after.body)).toBe(true);
    expect(verifyServiceSignature(webhook.secret, after.headers, after.body)).toBe(false);

    await t.request('PATCH', `/api/v1/webhooks/${webhook.id}`, {
      key: org.key,
      body: { status: 'inactive' },
    });
    const other = await createDocument(t, {}, org.key);
    await t.request('DELETE', `/api/v1/documents/${other}`, { key: org.key });
    await sleep(300);
    expect(receiver.received).toHaveLength(3);
  });

  it('fans out to every subscribed webhook, with several attempts in flight at once', async () => {
    const slow = await setup(() => ({ status: 200, delayMs: 150 }));
    const second = await startReceiver(() => ({ status: 200, delayMs: 150 }));
    receivers.push(second);
    const secondSecrets: string[] = [];
    verifying(second, secondSecrets);
    const res = await t.request('POST', '/api/v1/webhooks', {
      key: slow.org.key,
      body: { url: second.url, events: ['document.created'] },
    });
    expect(res.status).toBe(201);
    secondSecrets.push(res.body.data.secret);
    let inFlight = 0;
    let peak = 0;
    for (const r of [slow.receiver, second]) {
      const base = r.respond;
      r.respond = (req, i) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        setTimeout(() => inFlight--, 150);
        return base(req, i);
      };
    }
    for (let i = 0; i < 10; i++) await createDocument(t, {}, slow.org.key);
    await waitFor(
      () => slow.receiver.received.length === 10 && second.received.length === 10,
      '20 deliveries',
    );
    expect(peak).toBeGreaterThanOrEqual(8);
    const ids = [...slow.receiver.received, ...second.received].map(
      (r) => r.headers['x-service-delivery-id'],
    );
    expect(new Set(ids).size).toBe(20);
  });
});

describe('every delivery of this file', () => {
  it('carried valid signatures of both schemes', () => {
    expect(checked.length).toBeGreaterThanOrEqual(35);
    expect(checked.filter((c) => !c.ok)).toEqual([]);
  });
});
