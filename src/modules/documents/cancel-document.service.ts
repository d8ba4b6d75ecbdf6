import type { AppDeps } from '../../deps.ts';
import { invalidState } from '../../http/errors.ts';
import { cancellationMail } from '../../mail/templates.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { writeAudit } from '../audit/audit.ts';
import { type Actor, documentEventData } from '../documents-core/document-access.ts';
import { lockDocumentForEdit } from '../documents-core/document-lock.ts';
import {
  canCancel,
  moveDocument,
  OPEN_DOCUMENT_STATUSES,
} from '../documents-core/document-status.ts';
import { moveSigner, UNFINISHED_SIGNER_STATUSES } from '../documents-core/signer-status.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import { emitEvent } from '../events/emit.ts';
import { orgMailOf } from '../orgs/org-name.ts';

/** Cancels a document out for signature; every recipient who had not completed is notified. */
export async function cancelDocument(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  id: string,
) {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, id);
    if (!canCancel(doc)) throw invalidState(`Cannot cancel a ${doc.status} document`);
    const now = deps.clock.now().toISOString();
    const moved = await moveDocument(trx, id, OPEN_DOCUMENT_STATUSES, 'cancelled', {
      updated_at: now,
    });
    if (!moved) throw invalidState('The document changed status meanwhile');
    const signers = await listSigners(trx, id);
    const open = signers.filter((s) => s.status !== 'completed');
    const org = await orgMailOf(trx, actor.orgId);
    for (const signer of open) {
      await moveSigner(trx, signer.id, UNFINISHED_SIGNER_STATUSES, 'cancelled', {
        updated_at: now,
      });
      await enqueueJob(trx, deps.clock, 'mail', cancellationMail({ doc, signer, ...org }));
    }
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId: id,
      action: 'document.cancelled',
      details: `Cancelled; ${open.length} recipient(s) notified`,
      meta: actor.meta,
    });
    await emitEvent(
      trx,
      deps.clock,
      actor.orgId,
      'document.cancelled',
      await documentEventData(trx, actor.orgId, id),
    );
    return { id, status: 'cancelled', cancelledSigners: open.length };
  });
}
