import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createDocument } from '../helpers/factories.ts';
import { SmtpSink } from '../helpers/smtp-sink.ts';
import { sleep, startReceiver, waitFor, type Receiver } from './support.ts';

let t: TestApp;
let smtp: SmtpSink;
let receiver: Receiver;
let up = false;
const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-spool-'));

beforeAll(async () => {
  smtp = await SmtpSink.start();
  receiver = await startReceiver(() => (up ? { status: 200 } : { status: 500, body: 'down' }));
  const mailer = smtp.mailer(spool);
  t = await buildTestApp({
    env: {
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: Array(8).fill('20ms').join(','),
      WEBHOOK_TIMEOUT_MS: '300',
    },
    mailer,
  });
  t.app.deliveries.start();
  t.app.jobs.start();
});
afterAll(async () => {
  await t.app.deliveries.stop();
  await t.close();
  t.mailer.close();
  await receiver.close();
  await smtp.close();
  fs.rmSync(spool, { recursive: true, force: true });
});

describe('20 consecutive failures', () => {
  it('deactivate the webhook, hold its deliveries, email the admin over SMTP, and stop all attempts; reactivation delivers what was held', async () => {
    // Credentials in the URL reach the receiver as basic auth, and stay out of the email.
    const url = receiver.url.replace('http://', 'http://hooks:hunter2@');
    const created = await t.request('POST', '/api/v1/webhooks', {
      body: { url, events: ['document.created'] },
    });
    const id = created.body.data.id;
    // Three events with 9 attempts each could make 27 attempts; the webhook stops at 20.
    for (let i = 0; i < 3; i++) await createDocument(t);
    const hook = await waitFor(async () => {
      const res = await t.request('GET', `/api/v1/webhooks/${id}`);
      return res.body.data.status === 'inactive' ? res.body.data : null;
    }, 'deactivation');
    expect(hook.failureCount).toBe(20);

    const countAtDeactivation = receiver.received.length;
    expect(countAtDeactivation).toBeGreaterThanOrEqual(20);
    // Once the first failure is counted the webhook gets one probe at a time; attempts that were
    // already on the wire with that first one fail with it and are not counted again (at most 2 here).
    expect(countAtDeactivation).toBeLessThanOrEqual(22);
    await sleep(400);
    expect(receiver.received).toHaveLength(countAtDeactivation);

    const deliveries = (await t.request('GET', `/api/v1/webhooks/${id}/deliveries`)).body.data;
    expect(deliveries).toHaveLength(3);
    // Held for reactivation (or failed, had one used up its attempts): none is dropped.
    expect(
      deliveries.every((d: { status: string }) => d.status === 'pending' || d.status === 'failed'),
    ).toBe(true);
    const held = deliveries
      .filter((d: { status: string }) => d.status === 'pending')
      .map((d: { id: string }) => d.id);
    expect(held.length).toBeGreaterThan(0);
    const attempts = deliveries.reduce(
      (n: number, d: { attempts: unknown[] }) => n + d.attempts.length,
      0,
    );
    expect(attempts).toBe(countAtDeactivation);

    const mail = await smtp.waitFor((m) => m.to.includes('admin@acme.test'));
    expect(mail.subject).toBe('Webhook deactivated after 20 consecutive failures');
    expect(mail.text).toContain(id);
    expect(mail.text).toContain(`http://127.0.0.1:${receiver.port}/hook`);
    expect(mail.text).not.toContain(created.body.data.secret);
    expect(mail.text).not.toContain('hunter2');
    expect(receiver.received[0].headers.authorization).toBe(
      `Basic ${Buffer.from('hooks:hunter2').toString('base64')}`,
    );

    // Inactive: no new deliveries, no test events.
    await createDocument(t);
    expect((await t.request('GET', `/api/v1/webhooks/${id}/deliveries`)).body.data).toHaveLength(3);
    expect((await t.request('POST', `/api/v1/webhooks/${id}/test`)).status).toBe(409);
    await sleep(100);
    expect(smtp.messages).toHaveLength(1);

    // Reactivation resets the streak; the held deliveries go out, and new events too.
    up = true;
    const on = await t.request('PATCH', `/api/v1/webhooks/${id}`, { body: { status: 'active' } });
    expect(on.body.data).toMatchObject({ status: 'active', failureCount: 0 });
    await createDocument(t);
    await waitFor(
      async () =>
        (await t.request('GET', `/api/v1/webhooks/${id}/deliveries?status=succeeded`)).body.data
          .length ===
        held.length + 1,
      'held deliveries and a new one after reactivation',
    );
    expect(receiver.received).toHaveLength(countAtDeactivation + held.length + 1);
    const delivered = receiver.received
      .slice(countAtDeactivation)
      .map((r) => r.headers['x-service-delivery-id']);
    expect(delivered).toEqual(expect.arrayContaining(held));
  });
});
