import type { AppDeps } from '../../deps.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { expiredMail } from '../../mail/templates.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../audit/audit.ts';
import { emitEvent } from '../events/emit.ts';
import {
  isFinishedSigner,
  moveSigner,
  UNFINISHED_SIGNER_STATUSES,
} from '../documents-core/signer-status.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import { lockDocument } from '../documents-core/document-lock.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import { openSigners } from '../documents-core/signing-rules.ts';
import {
  isOpenDocument,
  moveDocument,
  OPEN_DOCUMENT_STATUSES,
} from '../documents-core/document-status.ts';
import { documentEventData } from '../documents-core/document-access.ts';

/*
 * Documents expire when their `expiresAt` passes (the scheduler's pass, src/jobs/schedulers.ts).
 * Each expiry is a conditional UPDATE that only one instance can win, and its mails and event are
 * committed with it, so several instances never send the same mail twice.
 */

const BATCH = 100;

/**
 * `pending`/`action_required` documents whose `expiresAt` has passed become `expired`; recipients
 * who had not finished become `cancelled`, and everyone is told. A document whose signers have all
 * completed is left to the finalize job: its signed PDF is on the way.
 */
export async function expireDocuments(deps: Pick<AppDeps, 'db' | 'clock'>): Promise<number> {
  const now = deps.clock.now().toISOString();
  const due = await deps.db
    .selectFrom('documents')
    .select('id')
    .where('status', 'in', OPEN_DOCUMENT_STATUSES)
    .where('expires_at', '<=', now)
    .where('deleted_at', 'is', null)
    .orderBy('expires_at')
    .limit(BATCH)
    .execute();
  let expired = 0;
  for (const { id } of due) {
    const done = await deps.db.transaction().execute(async (trx) => {
      const doc = await lockDocument(trx, id);
      if (!doc || !isOpenDocument(doc.status) || !doc.expires_at || doc.expires_at > now)
        return false;
      const signers = await listSigners(trx, id);
      if (openSigners(signers).length === 0) return false;
      if (!(await moveDocument(trx, id, OPEN_DOCUMENT_STATUSES, 'expired', { updated_at: now })))
        return false;
      const org = await orgMailOf(trx, doc.org_id);
      for (const signer of signers) {
        if (!isFinishedSigner(signer.status))
          await moveSigner(trx, signer.id, UNFINISHED_SIGNER_STATUSES, 'cancelled', {
            updated_at: now,
          });
        await enqueueJob(trx, deps.clock, 'mail', expiredMail({ doc, recipient: signer, ...org }));
      }
      await writeAudit(trx, deps.clock, {
        orgId: doc.org_id,
        documentId: id,
        action: 'document.expired',
        details: `Expired at ${doc.expires_at} before everyone signed; ${signers.length} recipient(s) notified`,
        meta: UNKNOWN_ACTOR,
      });
      await emitEvent(
        trx,
        deps.clock,
        doc.org_id,
        'document.expired',
        await documentEventData(trx, doc.org_id, id),
      );
      return true;
    });
    if (done) expired++;
  }
  return expired;
}
