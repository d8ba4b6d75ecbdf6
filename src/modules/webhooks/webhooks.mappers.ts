import type { DeliveryRow, WebhookRow } from '../../db/database.ts';
import type { AttemptRow } from './webhooks.repository.ts';
import type { CreatedWebhookT, DeliveryT, WebhookT } from './webhooks.schemas.ts';

type Status = WebhookT['status'];

export function toWebhook(row: WebhookRow): WebhookT {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    status: row.status as Status,
    description: row.description,
    failureCount: row.failure_count,
    createdAt: row.created_at,
  };
}

/** The create response carries `events` as the serialized JSON array, and the secret. */
export function toCreatedWebhook(row: WebhookRow): CreatedWebhookT {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status as Status,
    description: row.description,
    secret: row.secret,
    failureCount: row.failure_count,
    createdAt: row.created_at,
  };
}

export function toDelivery(row: DeliveryRow, attempts: AttemptRow[]): DeliveryT {
  return {
    id: row.id,
    event: row.event_type,
    eventId: row.event_id,
    status: row.status as DeliveryT['status'],
    attemptCount: row.attempt_count,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    lastStatusCode: row.last_status_code,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    attempts: attempts.map((a) => ({
      id: a.id,
      attemptedAt: a.attempted_at,
      statusCode: a.status_code,
      durationMs: a.duration_ms,
      error: a.error,
      responseBody: a.response_body,
    })),
  };
}
