import type { Selectable } from 'kysely';
import type {
  DeliveryRow,
  Executor,
  WebhookAttemptsTable,
  WebhookRow,
  WebhookStatus,
  WebhookUpdate,
} from '../../db/database.ts';
import { paginate, type PageRequest } from '../../http/pagination.ts';

export type AttemptRow = Selectable<WebhookAttemptsTable>;

export async function findWebhook(
  db: Executor,
  orgId: string,
  id: string,
): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

export async function listWebhooks(
  db: Executor,
  orgId: string,
  filter: { status?: WebhookStatus },
  page: PageRequest,
) {
  let q = db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId);
  if (filter.status) q = q.where('status', '=', filter.status);
  return paginate(q, page);
}

export async function countWebhooks(db: Executor, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Serialises webhook registrations of one organization: a no-op update takes the organization
 * row's lock on PostgreSQL and the write lock on SQLite, so a count-then-insert in the same
 * transaction cannot race another one past the limit.
 */
export async function lockOrganization(trx: Executor, orgId: string): Promise<void> {
  await trx
    .updateTable('organizations')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', orgId)
    .execute();
}

export async function insertWebhook(db: Executor, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(
  db: Executor,
  id: string,
  changes: WebhookUpdate,
): Promise<void> {
  await db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
}

export async function deleteWebhook(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export async function listDeliveries(
  db: Executor,
  webhookId: string,
  filter: { status?: string },
  page: PageRequest,
) {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (filter.status) q = q.where('status', '=', filter.status);
  return paginate(q, page);
}

export async function findDelivery(
  db: Executor,
  webhookId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

export async function findDeliveryOfEvent(
  db: Executor,
  webhookId: string,
  eventId: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('event_id', '=', eventId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

/** Attempts of the given deliveries, oldest first, grouped by delivery id. */
export async function attemptsOf(
  db: Executor,
  deliveryIds: string[],
): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('attempted_at')
    .orderBy('id')
    .execute();
  for (const row of rows) byDelivery.get(row.delivery_id)?.push(row);
  return byDelivery;
}
