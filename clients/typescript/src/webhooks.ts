import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './schema.js';

/** A delivery's body: `{ id, event, api_version, created_at, data }` (`id` is the delivery id, the same on every retry). */
export type WebhookEvent = components['schemas']['Event'];

/** Headers as Node's `req.headers` gives them (lower-case names) or as a fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the delivery's timestamp may be from now, in seconds (default 300, as Signet advises). */
  toleranceSeconds?: number;
  /** The current time (default `new Date()`); for tests and replays of stored requests. */
  now?: Date | number;
}

/** Why a delivery was refused; `reason` tells which check failed. Answer such a request 400 (or 401) and drop it. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: 'missing_header' | 'bad_signature' | 'stale_timestamp' | 'bad_body',
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/**
 * Checks a webhook delivery from Signet and returns its event. `rawBody` must be the bytes as
 * received (not re-serialized JSON). Signet signs `"{X-Service-Timestamp}.{raw body}"` with
 * HMAC-SHA256 keyed with the webhook's secret string and sends `X-Service-Signature:
 * sha256=<hex>`; the signature is compared in constant time, and a timestamp further than
 * `toleranceSeconds` from now (a captured delivery replayed later) is refused. While rotating a
 * secret (`POST /api/v1/webhooks/{id}/rotate-secret`), pass the new and the previous secret.
 * Throws `WebhookVerificationError` when anything does not hold.
 */
export function verifyWebhook(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhook: the webhook secret is required');
  }
  const timestamp = header(headers, 'x-service-timestamp');
  const signature = header(headers, 'x-service-signature');
  if (!timestamp || !signature) {
    throw new WebhookVerificationError(
      'missing_header',
      'Not a Signet delivery: X-Service-Timestamp or X-Service-Signature is missing',
    );
  }
  if (!/^\d{1,15}$/.test(timestamp))
    throw new WebhookVerificationError(
      'missing_header',
      'X-Service-Timestamp is not a Unix time in seconds',
    );

  const body =
    typeof rawBody === 'string'
      ? Buffer.from(rawBody, 'utf8')
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const given = Buffer.from(signature);
  const matches = (key: string) => {
    const expected = Buffer.from(
      `sha256=${createHmac('sha256', Buffer.from(key, 'utf8')).update(`${timestamp}.`).update(body).digest('hex')}`,
    );
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  // The signature is checked before the time, so a forged request learns nothing about the clock.
  if (!secrets.some(matches)) {
    throw new WebhookVerificationError(
      'bad_signature',
      'X-Service-Signature does not match: wrong secret, or the body was altered',
    );
  }

  const tolerance = options.toleranceSeconds ?? 300;
  const now =
    options.now === undefined
      ? Date.now()
      : typeof options.now === 'number'
        ? options.now
        : options.now.getTime();
  const age = Math.floor(now / 1000) - Number(timestamp);
  if (Math.abs(age) > tolerance) {
    throw new WebhookVerificationError(
      'stale_timestamp',
      `X-Service-Timestamp is ${Math.abs(age)} s ${age > 0 ? 'old' : 'in the future'}, beyond the ${tolerance} s tolerance (a replay, or a clock out of sync)`,
    );
  }

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('bad_body', 'The delivery body is not JSON');
  }
  if (
    !event ||
    typeof event !== 'object' ||
    typeof (event as WebhookEvent).event !== 'string' ||
    typeof (event as WebhookEvent).id !== 'string'
  ) {
    throw new WebhookVerificationError(
      'bad_body',
      'The delivery body is not a Signet event envelope',
    );
  }
  return event as WebhookEvent;
}
