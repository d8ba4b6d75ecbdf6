import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSignetClient,
  verifyWebhook,
  WebhookVerificationError,
  type SignetClient,
} from '../../clients/typescript/src/index.ts';
import { startReceiver, waitFor, type Received, type Receiver } from '../webhooks/support.ts';
import { startLiveSignet, type LiveSignet } from './support.ts';

/*
 * verifyWebhook on real deliveries: a real Signet on 127.0.0.1 delivers to a real HTTP receiver
 * that verifies each request with the client's verifyWebhook and answers 200 or 400, as a user's
 * endpoint would.
 */
let live: LiveSignet;
let signet: SignetClient;
let receiver: Receiver;
let secret: string;
let webhookId: string;
const verdicts: { deliveryId: string; ok: boolean; reason?: string }[] = [];

/** Expects verifyWebhook to refuse, for this reason. */
function refused(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).reason;
  }
  throw new Error('verifyWebhook accepted it');
}

beforeAll(async () => {
  live = await startLiveSignet();
  signet = createSignetClient({ baseUrl: live.url, apiKey: live.t.key });
  receiver = await startReceiver((req) => {
    try {
      const event = verifyWebhook(secret, req.headers, req.body);
      verdicts.push({ deliveryId: event.id, ok: true });
      return { status: 200, body: 'ok' };
    } catch (err) {
      verdicts.push({
        deliveryId: String(req.headers['x-service-delivery-id']),
        ok: false,
        reason: (err as WebhookVerificationError).reason,
      });
      return { status: 400, body: 'refused' };
    }
  });
  const hook = await signet.POST('/api/v1/webhooks', {
    body: { url: receiver.url, events: ['document.created'] },
  });
  expect(hook.response.status).toBe(201);
  secret = hook.data!.data.secret;
  webhookId = hook.data!.data.id;
});
afterAll(async () => {
  await receiver?.close();
  await live?.close();
});

describe('verifyWebhook on a real delivery', () => {
  let delivery: Received;
  let docId: string;

  beforeAll(async () => {
    docId = (await signet.POST('/api/v1/documents', { body: { name: 'Delivered agreement' } }))
      .data!.data.id;
    delivery = await waitFor(
      () => receiver.received.find((r) => r.body.includes(docId)),
      'the document.created delivery',
      30_000,
    );
  });

  it('accepts it and returns the event; the receiver answered 200 and Signet logged the delivery as succeeded', async () => {
    const event = verifyWebhook(secret, delivery.headers, delivery.body);
    expect(event).toMatchObject({
      event: 'document.created',
      api_version: '2026-11-21',
      id: delivery.headers['x-service-delivery-id'],
    });
    expect((event.data as { id: string }).id).toBe(docId);
    expect(verdicts).toContainEqual({ deliveryId: event.id, ok: true });

    const log = await waitFor(
      async () => {
        const res = await signet.GET('/api/v1/webhooks/{id}/deliveries', {
          params: { path: { id: webhookId } },
        });
        return res.data!.data.find((d) => d.id === event.id && d.status === 'succeeded');
      },
      'the delivery to be logged as succeeded',
      20_000,
    );
    expect(log.id).toBe(event.id);
  });

  it('takes the body as bytes and the headers as a fetch Headers, and accepts the previous secret while rotating', () => {
    const headers = new Headers(
      Object.entries(delivery.headers).map(([k, v]) => [k, String(v)] as [string, string]),
    );
    expect(verifyWebhook(secret, headers, Buffer.from(delivery.body)).id).toBe(
      delivery.headers['x-service-delivery-id'],
    );
    expect(verifyWebhook(['0'.repeat(64), secret], delivery.headers, delivery.body).event).toBe(
      'document.created',
    );
  });

  it('refuses a tampered body', () => {
    const tampered = delivery.body.replace('Delivered agreement', 'Delivered agreemenT');
    expect(tampered).not.toBe(delivery.body);
    expect(refused(() => verifyWebhook(secret, delivery.headers, tampered))).toBe('bad_signature');
  });

  it('refuses a wrong secret', () => {
    expect(
      refused(() =>
        verifyWebhook(
          secret.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
          delivery.headers,
          delivery.body,
        ),
      ),
    ).toBe('bad_signature');
  });

  it('refuses a stale timestamp (older than the tolerance), and a re-signed timestamp does not help a forger', () => {
    const sentAt = Number(delivery.headers['x-service-timestamp']) * 1000;
    expect(
      verifyWebhook(secret, delivery.headers, delivery.body, { now: sentAt + 299_000 }).id,
    ).toBeTruthy();
    expect(
      refused(() =>
        verifyWebhook(secret, delivery.headers, delivery.body, { now: sentAt + 301_000 }),
      ),
    ).toBe('stale_timestamp');
    expect(
      refused(() =>
        verifyWebhook(secret, delivery.headers, delivery.body, {
          now: new Date(sentAt + 61_000),
          toleranceSeconds: 60,
        }),
      ),
    ).toBe('stale_timestamp');
    // Replaying the captured delivery with a fresh timestamp breaks the signature, which covers it.
    const fresh = {
      ...delivery.headers,
      'x-service-timestamp': String(Math.floor(Date.now() / 1000) + 600),
    };
    expect(
      refused(() => verifyWebhook(secret, fresh, delivery.body, { now: sentAt + 600_000 })),
    ).toBe('bad_signature');
  });

  it('refuses a request without the signature headers', () => {
    const { 'x-service-signature': _sig, ...unsigned } = delivery.headers;
    expect(refused(() => verifyWebhook(secret, unsigned, delivery.body))).toBe('missing_header');
  });

  it('a receiver using it refuses a forged request sent to it', async () => {
    const forged = await fetch(receiver.url, {
      method: 'POST',
      headers: Object.fromEntries(
        Object.entries(delivery.headers)
          .filter(([k]) => k.startsWith('x-service-'))
          .map(([k, v]) => [k, String(v)]),
      ),
      body: delivery.body.replace('document.created', 'document.completed'),
    });
    expect(forged.status).toBe(400);
    expect(verdicts.at(-1)).toMatchObject({ ok: false, reason: 'bad_signature' });
  });
});
