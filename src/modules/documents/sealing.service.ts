import type { AppDeps } from '../../deps.ts';
import { invalidState } from '../../http/errors.ts';
import { enqueueJob, PermanentJobError } from '../../queue/queue.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../audit/audit.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import { requireSenderAction } from '../signing/signing-flow.ts';
import { lockDocument, lockDocumentForEdit } from '../documents-core/document-lock.ts';
import { openSigners } from '../documents-core/signing-rules.ts';
import { canReseal, isOpenDocument, moveDocument } from '../documents-core/document-status.ts';
import * as repo from '../documents-core/documents.repository.ts';
import type { Actor } from '../documents-core/document-access.ts';
import { getDocument } from '../documents-core/document-access.ts';

/*
 * Sealing (the finalize job) that fails for good never leaves a document `pending` for ever: the
 * document becomes `action_required` with the reason, the sender is told (mail, event), and a
 * reseal queues the job again.
 */

/** Names of errors that another attempt cannot fix: the certificate or the PDF itself is unusable. */
const PERMANENT_SEALING_ERRORS = new Set([
  'SigningCertificateError',
  'PdfSyntaxError',
  'PdfUnsupportedError',
  'PdfLimitError',
]);

export function isPermanentSealingError(err: unknown): boolean {
  return (
    err instanceof PermanentJobError ||
    (err instanceof Error && PERMANENT_SEALING_ERRORS.has(err.name))
  );
}

/**
 * The finalize job gave up on a document (attempts exhausted, or a permanent error). Idempotent:
 * a document already completed, cancelled, or already marked, is left alone.
 */
export async function onSealingFailed(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  documentId: string,
  error: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocument(trx, documentId);
    if (!doc || !isOpenDocument(doc.status) || doc.sealing_error !== null) return;
    if (openSigners(await listSigners(trx, doc.id)).length > 0) return;
    const message = error.slice(0, 500) || 'unknown error';
    await repo.updateDocument(trx, doc.id, { sealing_error: message });
    await requireSenderAction(
      trx,
      deps,
      { ...doc, sealing_error: message },
      `every signer has signed, but the signed PDF could not be produced (${message}); fix the cause, then ask for a reseal (POST /api/v1/documents/${doc.id}/reseal)`,
      UNKNOWN_ACTOR,
    );
  });
}

/** `POST /api/v1/documents/{id}/reseal`: back to `pending` and the finalize job queued again. */
export async function resealDocument(
  deps: Pick<AppDeps, 'db' | 'dialect' | 'storage' | 'clock' | 'pdf'>,
  actor: Actor,
  id: string,
) {
  await deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, id);
    if (!canReseal(doc)) {
      throw invalidState(
        `Only a document whose sealing failed can be resealed; this one is ${doc.status}`,
      );
    }
    const now = deps.clock.now().toISOString();
    const moved = await moveDocument(trx, id, ['action_required'], 'pending', {
      sealing_error: null,
      updated_at: now,
    });
    if (!moved) throw invalidState('The document changed status meanwhile');
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId: id,
      action: 'document.reseal_requested',
      details: `Sealing asked for again (it had failed: ${doc.sealing_error})`,
      meta: actor.meta,
    });
    await enqueueJob(trx, deps.clock, 'finalize', { documentId: id });
  });
  return getDocument(deps, actor.orgId, id);
}
