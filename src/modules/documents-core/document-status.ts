import type { DocumentRow, DocumentStatus, DocumentUpdate, Executor } from '../../db/database.ts';
import { checkTransition, type Transitions } from '../../state-machine.ts';

/*
 * The document state machine. A draft is sent (`pending`); while out for signature it may need
 * the sender (`action_required`, and back), and it ends `completed` (its signed PDF stored),
 * `cancelled`, `expired` or `declined`. moveDocument(s) is the only code that changes the status
 * of an existing document.
 */
export const DOCUMENT_TRANSITIONS: Transitions<DocumentStatus> = {
  draft: ['pending'],
  pending: ['action_required', 'completed', 'cancelled', 'expired', 'declined'],
  action_required: ['pending', 'completed', 'cancelled', 'expired', 'declined'],
  completed: [],
  cancelled: [],
  expired: [],
  declined: [],
};

/** Out for signature: signers may act, reminders go out, the sender may cancel but not delete. */
export const OPEN_DOCUMENT_STATUSES: readonly DocumentStatus[] = ['pending', 'action_required'];

export const isOpenDocument = (status: DocumentStatus) => OPEN_DOCUMENT_STATUSES.includes(status);

/*
 * The action guards: which documents the sender may cancel, delete or reseal. Each use case
 * asks here, so the rule has one home.
 */

/** Cancel only while out for signature (`pending` or `action_required`). */
export const canCancel = (doc: Pick<DocumentRow, 'status'>) => isOpenDocument(doc.status);

/** Delete only when not out for signature (cancel first). */
export const canDelete = (doc: Pick<DocumentRow, 'status'>) => !isOpenDocument(doc.status);

/** Reseal only a document whose sealing failed: `action_required` with a sealing error. */
export const canReseal = (doc: Pick<DocumentRow, 'status' | 'sealing_error'>) =>
  doc.status === 'action_required' && doc.sealing_error !== null;

/**
 * Moves a live document from one of `from` to `to` together with `changes`, atomically: false
 * when its status was not one of `from` (another request moved it first, so two concurrent sends
 * cannot both succeed). Throws IllegalTransitionError when the table forbids a move.
 */
export async function moveDocument(
  db: Executor,
  id: string,
  from: readonly DocumentStatus[],
  to: DocumentStatus,
  changes: DocumentUpdate,
): Promise<boolean> {
  return (await moveDocuments(db, [id], from, to, changes)) === 1;
}

/** moveDocument for several documents at once: how many were moved. */
export async function moveDocuments(
  db: Executor,
  ids: readonly string[],
  from: readonly DocumentStatus[],
  to: DocumentStatus,
  changes: DocumentUpdate,
): Promise<number> {
  checkTransition('document', DOCUMENT_TRANSITIONS, from, to);
  const result = await db
    .updateTable('documents')
    .set({ ...changes, status: to })
    .where('id', 'in', ids)
    .where('status', 'in', from)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
