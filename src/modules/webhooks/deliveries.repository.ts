import { sql, type Insertable, type Updateable } from 'kysely';
import type { Dialect } from '../../db/create-db.ts';
import type { Db, DeliveryRow, Executor, WebhookAttemptsTable, WebhookDeliveriesTable } from '../../db/database.ts';
import { claimRows } from '../../jobs/queue.ts';

/** Queries of the delivery worker (src/jobs/webhook-delivery.ts). */

/**
 * Leases up to `limit` due deliveries: pending ones whose time has come and whose lease, if any,
 * has expired (the worker holding it died). The lease is the fencing token of the attempt.
 */
export async function claimDueDeliveries(db: Db, dialect: Dialect, now: Date, leaseMs: number, limit: number): Promise<DeliveryRow[]> {
  const nowIso = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  return claimRows<DeliveryRow>(db, dialect, {
    table: 'webhook_deliveries',
    set: sql`leased_until = ${lease}, attempt_count = attempt_count + 1, updated_at = ${nowIso}`,
    due: sql`status = 'pending' and next_attempt_at <= ${nowIso} and (leased_until is null or leased_until < ${nowIso})`,
    orderBy: 'next_attempt_at',
    limit,
  });
}

/** What an attempt needs beside the delivery: the webhook's URL, secret and status, the event's data. */
export interface DeliveryTarget {
  id: string;
  url: string | null;
  secret: string | null;
  webhook_status: string | null;
  event_data: string | null;
  event_created_at: string | null;
}

export async function findTargets(db: Executor, deliveryIds: string[]): Promise<Map<string, DeliveryTarget>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .leftJoin('events as e', 'e.id', 'd.event_id')
    .select(['d.id', 'w.url', 'w.secret', 'w.status as webhook_status', 'e.data as event_data', 'e.created_at as event_created_at'])
    .where('d.id', 'in', deliveryIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Records the outcome of an attempt, only if the delivery is still pending under this lease:
 * a delivery cancelled meanwhile stays cancelled. Returns whether it was updated.
 */
export async function settleDelivery(
  db: Executor,
  claim: { id: string; leased_until: string | null },
  changes: Updateable<WebhookDeliveriesTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, leased_until: null })
    .where('id', '=', claim.id)
    .where('status', '=', 'pending')
    .where('leased_until', '=', claim.leased_until)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertAttempt(db: Executor, row: Insertable<WebhookAttemptsTable>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

/** A success ends the streak (written only when there was one, so successes do not contend). */
export async function resetFailures(db: Executor, webhookId: string, now: string): Promise<void> {
  await db.updateTable('webhooks').set({ failure_count: 0, updated_at: now }).where('id', '=', webhookId).where('failure_count', '<>', 0).execute();
}
