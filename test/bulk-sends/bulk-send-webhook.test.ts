import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { startReceiver, verifyServiceSignature, type Receiver } from '../webhooks/support.ts';
import { bulkTemplate, clientRow } from './setup.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await buildTestApp({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('bulk_send.completed', () => {
  it('is delivered once to a real receiver, signed, with the bulk send as data; document events carry bulkSendId', async () => {
    const hook = await t.request('POST', '/api/v1/webhooks', {
      body: { url: `${receiver.url}/hook`, events: ['bulk_send.completed', 'document.sent'] },
    });
    expect(hook.status).toBe(201);
    const tpl = await bulkTemplate(t);
    const res = await t.request('POST', '/api/v1/bulk-sends', {
      body: { templateId: tpl, name: 'Hooked', rows: [clientRow(1), clientRow(2), clientRow(3)] },
    });
    expect(res.status).toBe(202);
    await t.drainJobs();
    await t.app.deliveries.drain();
    const completed = receiver.received.filter(
      (r) => r.headers['x-service-event'] === 'bulk_send.completed',
    );
    expect(completed).toHaveLength(1);
    expect(
      verifyServiceSignature(hook.body.data.secret, completed[0].headers, completed[0].body),
    ).toBe(true);
    const envelope = JSON.parse(completed[0].body);
    expect(envelope.data).toEqual({
      id: res.body.data.id,
      name: 'Hooked',
      templateId: tpl,
      status: 'completed',
      total: 3,
      sent: 3,
      failed: 0,
      createdAt: res.body.data.createdAt,
      updatedAt: expect.any(String),
      completedAt: expect.any(String),
    });
    const sent = receiver.received
      .filter((r) => r.headers['x-service-event'] === 'document.sent')
      .map((r) => JSON.parse(r.body).data);
    expect(sent).toHaveLength(3);
    for (const d of sent)
      expect(d).toMatchObject({
        bulkSendId: res.body.data.id,
        templateId: tpl,
        _count: { signers: 2, attachments: 0 },
      });
  });
});
