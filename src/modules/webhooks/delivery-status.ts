import type { Updateable } from 'kysely';
import type { Executor, WebhookDeliveriesTable } from '../../db/database.ts';
import { checkTransition, predecessors, type Transitions } from '../../state-machine.ts';

/*
 * The webhook delivery state machine, the only code that changes `webhook_deliveries.status` of
 * an existing delivery (events/emit.ts inserts them `pending`):
 *   pending ──attempt──▶ succeeded | pending (retry later) | failed (retries exhausted)
 *   pending ──webhook deleted──▶ cancelled
 *   succeeded | failed ──retried by the sender──▶ pending
 * A cancelled delivery belongs to a deleted webhook: nothing moves it again.
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_TRANSITIONS: Transitions<DeliveryStatus> = {
  pending: ['pending', 'succeeded', 'failed', 'cancelled'],
  succeeded: ['pending'],
  failed: ['pending'],
  cancelled: [],
};

/** What an attempt's outcome writes beside the status (which the transition table checks). */
type Settlement = Omit<Updateable<WebhookDeliveriesTable>, 'status'> & { status?: DeliveryStatus };

/**
 * Records the outcome of an attempt, only if the delivery is still pending under this lease:
 * a delivery cancelled meanwhile stays cancelled. Without `status` it stays pending. Returns
 * whether it was updated. Throws IllegalTransitionError when the table forbids the move.
 */
export async function settleDelivery(
  db: Executor,
  claim: { id: string; leased_until: string | null },
  changes: Settlement,
): Promise<boolean> {
  if (changes.status)
    checkTransition('delivery', DELIVERY_TRANSITIONS, ['pending'], changes.status);
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, leased_until: null })
    .where('id', '=', claim.id)
    .where('status', '=', 'pending')
    .where('leased_until', '=', claim.leased_until)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Deliveries still waiting for an attempt will get none: the webhook was deleted. Those leased to
 * an attempt in flight are left to their worker, which records the attempt and then cancels them
 * (it finds the webhook gone); skipping them also means this statement never waits for another
 * worker's recording transaction.
 */
export async function cancelPendingDeliveries(
  db: Executor,
  webhookId: string,
  now: string,
): Promise<void> {
  checkTransition('delivery', DELIVERY_TRANSITIONS, ['pending'], 'cancelled');
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', next_attempt_at: null, updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]))
    .execute();
}

/**
 * Makes a delivery due now (pending again when it had succeeded or failed); false when it could
 * not be (cancelled). An attempt already in flight keeps its lease; its outcome then decides
 * what follows.
 */
export async function requeueDelivery(db: Executor, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', predecessors(DELIVERY_TRANSITIONS, 'pending'))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
