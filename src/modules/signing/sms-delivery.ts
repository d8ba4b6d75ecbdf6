import type { AppDeps } from '../../deps.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../audit/audit.ts';
import { lockDocument } from '../documents-core/document-lock.ts';
import { isOpenDocument } from '../documents-core/document-status.ts';
import { maskPhone } from '../documents-core/signer-phone.ts';
import { isFinishedSigner } from '../documents-core/signer-status.ts';
import * as repo from './signing.repository.ts';
import { requireSenderAction } from './signing-flow.ts';

/**
 * The SMS worker gave up on a code (the gateway or Twilio refused the number, or the code expired
 * before any attempt got through): the signer is marked, and the document waits in
 * `action_required` (`sms_undeliverable`) for the sender to correct the signer's phone
 * (`PATCH …/signers/{id}`), which clears the mark. Idempotent.
 */
export async function onSmsUndeliverable(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  ref: { documentId: string; signerId: string; to: string },
  error: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocument(trx, ref.documentId);
    const signer = await repo.findSignerById(trx, ref.signerId);
    if (!doc || !signer || !isOpenDocument(doc.status) || signer.sms_failed_at) return;
    if (isFinishedSigner(signer.status)) return;
    // A message to a phone the sender has since corrected says nothing about the new one.
    if (signer.phone !== ref.to) return;
    const now = deps.clock.now().toISOString();
    const why = error.slice(0, 300);
    await repo.updateSignerRow(trx, signer.id, {
      sms_failed_at: now,
      sms_error: why,
      updated_at: now,
    });
    await writeAudit(trx, deps.clock, {
      orgId: doc.org_id,
      documentId: doc.id,
      action: 'signer.sms_failed',
      details: `The signing code for ${signer.name} could not be texted to ${maskPhone(ref.to)}: ${why}`,
      meta: UNKNOWN_ACTOR,
    });
    await requireSenderAction(
      trx,
      deps,
      doc,
      `a signing code could not be texted to ${signer.name} (${maskPhone(ref.to)}); correct the signer's phone`,
      UNKNOWN_ACTOR,
    );
  });
}
