import { createHmac, randomBytes } from 'node:crypto';
import { API_VERSION } from '../events/event-types.ts';

/** `User-Agent` of every delivery (docs/webhooks.md: `<service>-Webhooks/1.0`). */
const USER_AGENT = 'Signet-Webhooks/1.0';

/** A new webhook secret: 32 random bytes as 64 hex characters. */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The delivery envelope as sent on the wire. `data` is the event's stored JSON text, spliced in
 * unchanged so every retry carries byte-identical data.
 */
export function envelopeBody(delivery: {
  id: string;
  eventType: string;
  eventCreatedAt: string;
  eventData: string;
}): string {
  return (
    `{"id":${JSON.stringify(delivery.id)},"event":${JSON.stringify(delivery.eventType)},` +
    `"api_version":${JSON.stringify(API_VERSION)},"created_at":${JSON.stringify(delivery.eventCreatedAt)},` +
    `"data":${delivery.eventData}}`
  );
}

/**
 * Every header of one attempt. Both signatures use the secret string's UTF-8 bytes as the HMAC
 * key and cover the timestamp, so a captured delivery cannot be replayed later:
 * - `X-Service-Signature: sha256=<hex>` over `{timestamp}.{body}`;
 * - Standard Webhooks `webhook-signature: v1,<base64>` over `{id}.{timestamp}.{body}`.
 */
export function deliveryHeaders(args: {
  secret: string;
  deliveryId: string;
  eventType: string;
  timestamp: number;
  body: string;
}): Record<string, string> {
  const key = Buffer.from(args.secret, 'utf8');
  const ts = String(args.timestamp);
  const hex = createHmac('sha256', key).update(`${ts}.`).update(args.body).digest('hex');
  const b64 = createHmac('sha256', key)
    .update(`${args.deliveryId}.${ts}.`)
    .update(args.body)
    .digest('base64');
  return {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(args.body)),
    'User-Agent': USER_AGENT,
    'X-Service-Event': args.eventType,
    'X-Service-Signature': `sha256=${hex}`,
    'X-Service-Delivery-Id': args.deliveryId,
    'X-Service-Timestamp': ts,
    'webhook-id': args.deliveryId,
    'webhook-timestamp': ts,
    'webhook-signature': `v1,${b64}`,
  };
}
