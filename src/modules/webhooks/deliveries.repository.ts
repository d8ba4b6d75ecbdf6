import { sql, type Insertable, type Updateable } from 'kysely';
import type { Dialect } from '../../db/create-db.ts';
import type {
  Db,
  DeliveryRow,
  Executor,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
} from '../../db/database.ts';
import { claimRows } from '../../queue/queue.ts';

/** Queries of the delivery worker (src/jobs/webhook-delivery.ts). */

const dueNow = (nowIso: string) =>
  sql`status = 'pending' and next_attempt_at <= ${nowIso} and (leased_until is null or leased_until < ${nowIso})`;
const claimSet = (nowIso: string, lease: string) =>
  sql`leased_until = ${lease}, attempt_count = attempt_count + 1, updated_at = ${nowIso}`;

/**
 * Leases up to `limit` due deliveries of healthy webhooks (active, no failure streak): pending
 * ones whose time has come and whose lease, if any, has expired (the worker holding it died).
 * The lease is the fencing token of the attempt. Deliveries of an inactive webhook are held until
 * it is reactivated; those of a failing webhook go one at a time, as probes (claimProbes).
 */
export async function claimDueDeliveries(
  db: Db,
  dialect: Dialect,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<DeliveryRow[]> {
  const nowIso = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  return claimRows<DeliveryRow>(db, dialect, {
    table: 'webhook_deliveries',
    set: claimSet(nowIso, lease),
    // Written as "not held" rather than "healthy": a deleted webhook's leftovers are claimed and cancelled.
    due: sql`${dueNow(nowIso)} and webhook_id not in (select id from webhooks where status <> 'active' or failure_count > 0)`,
    orderBy: 'next_attempt_at',
    limit,
  });
}

/**
 * One probe per failing webhook whose backoff has passed (`probe_at`): the webhook's probe slot is
 * leased first (so several workers or instances send one probe, not one each), then its oldest
 * due delivery. A webhook with nothing due gets its slot back at once.
 */
export async function claimProbes(
  db: Db,
  dialect: Dialect,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<DeliveryRow[]> {
  const nowIso = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  const failing = await db
    .selectFrom('webhooks')
    .select('id')
    .where('status', '=', 'active')
    .where('failure_count', '>', 0)
    .where((eb) => eb.or([eb('probe_at', 'is', null), eb('probe_at', '<=', nowIso)]))
    .limit(limit)
    .execute();
  if (failing.length === 0) return [];
  const slots = await claimRows<{ id: string }>(db, dialect, {
    table: 'webhooks',
    set: sql`probe_at = ${lease}`,
    due: sql`id in (${sql.join(failing.map((w) => w.id))}) and status = 'active' and failure_count > 0 and (probe_at is null or probe_at <= ${nowIso})`,
    orderBy: 'id',
    limit,
  });
  const probes: DeliveryRow[] = [];
  for (const { id } of slots) {
    const [probe] = await claimRows<DeliveryRow>(db, dialect, {
      table: 'webhook_deliveries',
      set: claimSet(nowIso, lease),
      due: sql`${dueNow(nowIso)} and webhook_id = ${id}`,
      orderBy: 'next_attempt_at',
      limit: 1,
    });
    if (probe) probes.push(probe);
    else
      await db
        .updateTable('webhooks')
        .set({ probe_at: nowIso })
        .where('id', '=', id)
        .where('probe_at', '=', lease)
        .execute();
  }
  return probes;
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

export async function findTargets(
  db: Executor,
  deliveryIds: string[],
): Promise<Map<string, DeliveryTarget>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .leftJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'w.url',
      'w.secret',
      'w.status as webhook_status',
      'e.data as event_data',
      'e.created_at as event_created_at',
    ])
    .where('d.id', 'in', deliveryIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

export async function insertAttempt(
  db: Executor,
  row: Insertable<WebhookAttemptsTable>,
): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

/**
 * A success ends the streak (written only when there was one, so successes do not contend) and
 * the backlog drains at once: deliveries that waited for a later attempt are due now.
 */
export async function resetFailures(db: Executor, webhookId: string, now: string): Promise<void> {
  const ended = await db
    .updateTable('webhooks')
    .set({ failure_count: 0, probe_at: null, last_failure_at: null, updated_at: now })
    .where('id', '=', webhookId)
    .where('failure_count', '<>', 0)
    .executeTakeFirst();
  if (Number(ended.numUpdatedRows) > 0) await releaseDeliveries(db, webhookId, now);
}

/** The webhook's pending deliveries scheduled later are due now (recovery, reactivation). */
export async function releaseDeliveries(
  db: Executor,
  webhookId: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .execute();
}

/** The next probe of a failing webhook may start now (a retry or test asked for by the sender). */
export async function probeNow(db: Executor, webhookId: string, now: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ probe_at: now })
    .where('id', '=', webhookId)
    .where('failure_count', '>', 0)
    .execute();
}
