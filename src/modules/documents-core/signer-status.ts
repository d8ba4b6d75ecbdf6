import type { Executor, SignerStatus, SignerUpdate } from '../../db/database.ts';
import { checkTransition, type Transitions } from '../../state-machine.ts';

/*
 * The signer state machine. A signer waits (`pending`) until their turn, is invited (`sent`),
 * opens the link (`viewed`) and ends `completed` or `declined`; `cancelled` when the document
 * stops first. moveSigner(s) is the only code that changes the status of an existing signer.
 */
export const SIGNER_TRANSITIONS: Transitions<SignerStatus> = {
  pending: ['sent', 'completed', 'declined', 'cancelled'],
  sent: ['viewed', 'completed', 'declined', 'cancelled'],
  // Back to `sent` when the sender corrects the email: whoever reads the new address has not opened it.
  viewed: ['sent', 'completed', 'declined', 'cancelled'],
  completed: [],
  declined: [],
  cancelled: [],
};

/** A signer in one of these has nothing left to do (and can no longer be corrected). */
const FINISHED_SIGNER_STATUSES: readonly SignerStatus[] = ['completed', 'declined', 'cancelled'];
/** Still to act. */
export const UNFINISHED_SIGNER_STATUSES: readonly SignerStatus[] = ['pending', 'sent', 'viewed'];
/** Invited and still to act: their turn (reminders go to these). */
export const INVITED_SIGNER_STATUSES: readonly SignerStatus[] = ['sent', 'viewed'];

export const isFinishedSigner = (status: SignerStatus) => FINISHED_SIGNER_STATUSES.includes(status);

/**
 * Changes a signer from one of `from` to `to` together with `changes`; false when its status was
 * not one of `from` (two concurrent completes of one signer cannot both succeed). Throws
 * IllegalTransitionError when the table forbids a move.
 */
export async function moveSigner(
  db: Executor,
  signerId: string,
  from: readonly SignerStatus[],
  to: SignerStatus,
  changes: SignerUpdate,
): Promise<boolean> {
  return (await moveSigners(db, [signerId], from, to, changes)) === 1;
}

/** moveSigner for several signers at once: how many were moved. */
export async function moveSigners(
  db: Executor,
  signerIds: readonly string[],
  from: readonly SignerStatus[],
  to: SignerStatus,
  changes: SignerUpdate,
): Promise<number> {
  checkTransition('signer', SIGNER_TRANSITIONS, from, to);
  if (signerIds.length === 0) return 0;
  const result = await db
    .updateTable('signers')
    .set({ ...changes, status: to })
    .where('id', 'in', signerIds)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
