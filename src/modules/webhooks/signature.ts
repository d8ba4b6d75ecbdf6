import { randomBytes } from 'node:crypto';
import { API_VERSION } from '../events/event-types.ts';

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
