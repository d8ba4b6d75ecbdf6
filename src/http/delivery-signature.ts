import { createHmac } from 'node:crypto';

/*
 * The signed headers of a request Signet sends: webhook deliveries (docs/webhooks.md) and, with
 * the same scheme, text messages to an SMS gateway of your own (docs/signer-authentication.md),
 * so a receiver checks both with one piece of code.
 */

/** `User-Agent` of every delivery (docs/webhooks.md: `<service>-Webhooks/1.0`). */
const USER_AGENT = 'Signet-Webhooks/1.0';

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
