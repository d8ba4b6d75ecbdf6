/*
 * The transactional outbox: events, webhooks and their deliveries, background jobs.
 * Part of the table types of `Database` (db/database.ts), whose storage conventions hold here too.
 */

/** Webhook status values: webhooks/webhook-status.ts holds the transitions and alone writes the column. */
export const WEBHOOK_STATUSES = ['active', 'inactive'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export interface EventsTable {
  id: string;
  org_id: string;
  type: string;
  /** JSON of the event's `data` object. */
  data: string;
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  org_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  status: WebhookStatus;
  description: string | null;
  secret: string;
  failure_count: number;
  /** While failing: when the next probe may start (null while healthy). */
  probe_at: string | null;
  /** While failing: when the latest counted failure was recorded (null while healthy). */
  last_failure_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  org_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** `pending`, `succeeded`, `failed` (retries exhausted) or `cancelled` (webhook deactivated/deleted). */
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  leased_until: string | null;
  last_status_code: number | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

/** Background jobs (mail, schedulers): the transactional outbox for everything that is not a webhook. */
export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  status: string;
  attempts: number;
  run_at: string;
  leased_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}
