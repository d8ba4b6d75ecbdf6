import type { AppDeps } from '../../deps.ts';
import type { DocumentRow, SignerRow, SignerUpdate } from '../../db/database.ts';
import { AppError, validation } from '../../http/errors.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { handedOverMail } from '../../mail/handover-mails.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { emitEvent } from '../events/emit.ts';
import { lockDocument } from '../documents-core/document-lock.ts';
import { updateDocument } from '../documents-core/documents.repository.ts';
import { otpMethodOf, requireSmsPhone, storedPhone } from '../documents-core/signer-phone.ts';
import { moveSigner } from '../documents-core/signer-status.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import { requireOpen, requireTurn } from '../documents-core/signing-rules.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import { clearTries, signerSubject } from './code-failures.ts';
import * as repo from './signing.repository.ts';
import { resumeIfResolved, signerEventData } from './signing-flow.ts';
import { invalidLink, issueLink, resolveToken } from './signing-links.ts';
import type { ReassignInput, ReassignResultT } from './reassign.schemas.ts';

/*
 * Hand-over (README "Reassign"): with the document's `allowReassign`, the signer whose turn it is
 * passes its part to someone else. The signer row stays (its order, role and fields), and takes
 * the new person's name, address and phone; everything the previous person did or proved on it
 * (viewing, consent, identity evidence review, one-time code and its wrong tries, a bounce) is
 * forgotten, since it was theirs. Their live links answer 410 `link_replaced` from then on, and
 * the new person is mailed a link of their own.
 */

/**
 * Whether this signer may hand over at all (turn aside): the document allows it, and the signer
 * has no access code (the sender gave that code to one person, out of band; a stranger taking
 * over would sign without it).
 */
export function mayReassign(
  doc: Pick<DocumentRow, 'allow_reassign'>,
  signer: Pick<SignerRow, 'access_code_hash'>,
): boolean {
  return Number(doc.allow_reassign) === 1 && !signer.access_code_hash;
}

function requireReassignable(doc: DocumentRow, signer: SignerRow): void {
  if (Number(doc.allow_reassign) !== 1)
    throw new AppError(
      'reassign_not_allowed',
      'This document does not allow handing over to someone else; ask the sender instead',
    );
  if (signer.access_code_hash)
    throw new AppError(
      'reassign_not_allowed',
      'A signer with an access code cannot hand over to someone else; ask the sender instead',
    );
}

/** What the previous person left on the row, cleared for the new one. */
const FRESH_SIGNER: SignerUpdate = {
  viewed_at: null,
  ip_address: null,
  user_agent: null,
  geo_city: null,
  geo_country: null,
  decline_reason: null,
  verification_status: null,
  verification_note: null,
  identity_attempts: 0,
  delivery_failed_at: null,
  delivery_error: null,
  email_unproven: 0,
  consent_text: null,
  consent_locale: null,
  consent_sha256: null,
  consented_at: null,
  sms_failed_at: null,
  sms_error: null,
};

/**
 * `POST /api/v1/signing/{token}/reassign`: the signer whose turn it is hands over to the person of
 * `input`. Audited and emitted as `signer.reassigned` with the previous person and the reason.
 */
export async function reassignSigning(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  token: string,
  input: ReassignInput,
  meta: RequestMeta,
): Promise<ReassignResultT> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  requireOpen(doc, signer);
  requireReassignable(doc, signer);
  requireTurn(doc, await listSigners(deps.db, doc.id), signer);
  const email = input.email.trim().toLowerCase();
  if (email === signer.email.toLowerCase())
    throw validation('body.email', "is this signer's own address: name the person who takes over");
  const name = input.name.trim();
  const reason = input.reason.trim();
  // Codes by SMS go to the phone the new person gives: the previous person's is not theirs.
  requireSmsPhone(otpMethodOf(doc, signer), input.phone, 'body.phone');

  return deps.db.transaction().execute(async (trx) => {
    const locked = await lockDocument(trx, doc.id);
    const current = await repo.findSignerById(trx, signer.id);
    if (!locked || !current) throw invalidLink();
    requireOpen(locked, current);
    requireReassignable(locked, current);
    requireTurn(locked, await listSigners(trx, locked.id), current);
    const now = deps.clock.now().toISOString();
    const changes: SignerUpdate = {
      ...FRESH_SIGNER,
      name,
      email,
      phone: storedPhone(input.phone),
      last_notified_at: now,
      updated_at: now,
    };
    await repo.updateSignerRow(trx, current.id, changes);
    await updateDocument(trx, locked.id, { updated_at: now });
    // Whoever reads the new address has not opened the document yet; the invitation below is theirs.
    const invited = current.status === 'pending' || current.status === 'viewed';
    if (invited) await moveSigner(trx, current.id, [current.status], 'sent', {});
    const updated: SignerRow = { ...current, ...changes, status: 'sent' } as SignerRow;
    await repo.deleteOtp(trx, current.id);
    await clearTries(trx, signerSubject(current.id));
    await repo.replaceSignerTokens(trx, current.id, now);
    const link = await issueLink(trx, deps, locked, updated);
    const org = await orgMailOf(trx, locked.org_id);
    await enqueueJob(trx, deps.clock, 'mail', {
      ...handedOverMail({
        doc: locked,
        signer: updated,
        ...org,
        previousName: current.name,
        link: link.url,
      }),
      signingInvitation: { documentId: locked.id, signerId: current.id },
    });
    // A bounce or an identity review of the previous person may have been what held the document.
    if (locked.status === 'action_required') await resumeIfResolved(trx, deps, locked.id, meta);
    await writeAudit(trx, deps.clock, {
      orgId: locked.org_id,
      documentId: locked.id,
      action: 'signer.reassigned',
      details: `${current.name} <${current.email}> (order ${current.position}) handed over to ${name} <${email}>: ${reason}`,
      meta,
    });
    const previous = { name: current.name, email: current.email };
    await emitEvent(trx, deps.clock, locked.org_id, 'signer.reassigned', {
      ...(await signerEventData(trx, locked, updated)),
      previous,
      reason,
    });
    return { documentId: locked.id, signerId: current.id, name, email, status: 'sent' };
  });
}
