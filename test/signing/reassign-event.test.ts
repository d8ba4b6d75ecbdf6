import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, verifyServiceSignature, type Receiver } from '../webhooks/support.ts';
import { address, latestToken, type SigningTest, sentDocument, signingApp } from './setup.ts';

let t: SigningTest;
let receiver: Receiver;
beforeAll(async () => {
  t = await signingApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

describe('the signer.reassigned event', () => {
  it('is delivered to a subscribed webhook, signed: the document list item, the new signer, previous and reason', async () => {
    const hook = await t.request('POST', '/api/v1/webhooks', {
      body: { url: `${receiver.url}/hook`, events: ['signer.reassigned'] },
    });
    expect(hook.status).toBe(201);
    const ada = address('ada');
    const doc = await sentDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: ada }],
      body: { allowReassign: true },
    });
    const email = address('grace');
    const reason = 'Grace signs for our team while I am on leave';
    const res = await t.request('POST', `/api/v1/signing/${latestToken(t, ada)}/reassign`, {
      key: null,
      body: { name: 'Grace Hopper', email, reason },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await t.settle();
    await t.app.deliveries.drain();
    const got = receiver.received.filter(
      (r) => r.headers['x-service-event'] === 'signer.reassigned',
    );
    expect(got).toHaveLength(1);
    expect(verifyServiceSignature(hook.body.data.secret, got[0].headers, got[0].body)).toBe(true);
    const { event, data } = JSON.parse(got[0].body);
    expect(event).toBe('signer.reassigned');
    const listed = (await t.request('GET', '/api/v1/documents?limit=100')).body.data.find(
      (d: any) => d.id === doc.id,
    );
    const { signer, previous, reason: said, ...item } = data;
    expect(item).toEqual(listed);
    expect(item.allowReassign).toBe(true);
    expect(signer).toMatchObject({
      id: doc.signers[0].id,
      name: 'Grace Hopper',
      email,
      status: 'sent',
      order: 0,
    });
    expect(previous).toEqual({ name: 'Ada Lovelace', email: ada });
    expect(said).toBe(reason);
  });
});
