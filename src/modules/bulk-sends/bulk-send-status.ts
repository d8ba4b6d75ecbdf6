import { sql } from 'kysely';
import type { BulkSendRow, BulkSendStatus, Executor } from '../../db/database.ts';
import { checkTransition, predecessors, type Transitions } from '../../state-machine.ts';

/*
 * The bulk send's state machine, the only code that writes `bulk_sends.status`:
 *   queued ──first row done──▶ processing ──no pending row left──▶ completed
 *   queued | processing ──cancel──▶ cancelled
 * Every transition is a conditional update, so concurrent jobs and requests on several
 * instances cannot both make it.
 */

export const BULK_SEND_STATUSES = [
  'queued',
  'processing',
  'completed',
  'cancelled',
] as const satisfies readonly BulkSendStatus[];

export const BULK_SEND_TRANSITIONS: Transitions<BulkSendStatus> = {
  queued: ['processing', 'completed', 'cancelled'],
  processing: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

/** Still sending: its rows may be processed, and the sender may cancel it. */
const OPEN: readonly BulkSendStatus[] = predecessors(BULK_SEND_TRANSITIONS, 'cancelled');

/** The action guard of cancelling (and of processing rows): queued or processing. */
export const isOpenBulkSend = (bulk: Pick<BulkSendRow, 'status'>) => OPEN.includes(bulk.status);

/** `rows` rows done (`sent` or `failed`), inside their transaction; a queued send starts processing. */
export async function countRows(
  trx: Executor,
  id: string,
  outcome: 'sent' | 'failed',
  now: string,
  rows = 1,
): Promise<void> {
  checkTransition('bulk send', BULK_SEND_TRANSITIONS, ['queued'], 'processing');
  await trx
    .updateTable('bulk_sends')
    .set((eb) => ({
      [outcome]: eb(outcome, '+', rows),
      status: sql<BulkSendStatus>`case when status = 'queued' then 'processing' else status end`,
      updated_at: now,
    }))
    .where('id', '=', id)
    .execute();
}

/**
 * Completes the bulk send when no row is pending any more; true when this call did it (so its
 * caller emits `bulk_send.completed` exactly once).
 */
export async function completeIfDone(trx: Executor, id: string, now: string): Promise<boolean> {
  checkTransition('bulk send', BULK_SEND_TRANSITIONS, OPEN, 'completed');
  const result = await trx
    .updateTable('bulk_sends')
    .set({ status: 'completed', completed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', OPEN)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('bulk_send_rows')
            .select('position')
            .where('bulk_send_id', '=', id)
            .where('status', '=', 'pending'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Cancels the bulk send and its pending rows; false when it was not queued or processing. */
export async function cancelBulkSendRows(trx: Executor, id: string, now: string): Promise<boolean> {
  checkTransition('bulk send', BULK_SEND_TRANSITIONS, OPEN, 'cancelled');
  const result = await trx
    .updateTable('bulk_sends')
    .set({ status: 'cancelled', updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', OPEN)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  await trx
    .updateTable('bulk_send_rows')
    .set({ status: 'cancelled', updated_at: now })
    .where('bulk_send_id', '=', id)
    .where('status', '=', 'pending')
    .execute();
  return true;
}
