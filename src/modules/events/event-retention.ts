import type { Executor } from '../../db/database.ts';

const DAY_MS = 24 * 3600 * 1000;
/** Events looked at per statement, so a large backlog never holds a long write lock. */
const BATCH = 500;

/**
 * Forgets what is older than `WEBHOOK_LOG_DAYS`: old events with their finished webhook
 * deliveries and those deliveries' attempts. An event with a delivery still pending is kept
 * whatever its age (the retries need it). Walks each organization's events by time through the
 * (org_id, created_at, id) index; runs with the schedulers, safe on several instances at once.
 */
export async function purgeEventLog(db: Executor, now: Date, days: number): Promise<number> {
  const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
  const orgs = await db.selectFrom('organizations').select('id').execute();
  let removed = 0;
  for (const { id: orgId } of orgs) {
    let after: { created_at: string; id: string } | null = null;
    for (;;) {
      let q = db
        .selectFrom('events')
        .select(['id', 'created_at'])
        .where('org_id', '=', orgId)
        .where('created_at', '<', cutoff);
      if (after) {
        const last = after;
        q = q.where((eb) =>
          eb.or([
            eb('created_at', '>', last.created_at),
            eb.and([eb('created_at', '=', last.created_at), eb('id', '>', last.id)]),
          ]),
        );
      }
      const batch = await q.orderBy('created_at').orderBy('id').limit(BATCH).execute();
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!;
      const ids = batch.map((e) => e.id);
      const finished = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('event_id', 'in', ids)
        .where('status', '!=', 'pending')
        .execute();
      if (finished.length > 0) {
        const deliveryIds = finished.map((d) => d.id);
        await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveryIds).execute();
        await db.deleteFrom('webhook_deliveries').where('id', 'in', deliveryIds).execute();
      }
      const gone = await db
        .deleteFrom('events')
        .where('id', 'in', ids)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries')
                .select('id')
                .whereRef('webhook_deliveries.event_id', '=', 'events.id'),
            ),
          ),
        )
        .executeTakeFirst();
      removed += Number(gone.numDeletedRows);
      if (batch.length < BATCH) break;
    }
  }
  return removed;
}
