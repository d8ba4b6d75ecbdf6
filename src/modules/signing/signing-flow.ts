import { isEmbeddedSigner } from '../documents-core/signers.rules.ts';
import type { AppDeps } from '../../deps.ts';
import type { DocumentRow, DocumentStatus, Executor, SignerRow } from '../../db/database.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { actionRequiredMail } from '../../mail/admin-mails.ts';
import { yourTurnMail } from '../../mail/templates.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { emitEvent } from '../events/emit.ts';
import { documentEventData } from '../documents-core/document-access.ts';
import { toSigner } from '../documents-core/documents.mappers.ts';
import { isOpenDocument, moveDocument } from '../documents-core/document-status.ts';
import { isFinishedSigner, moveSigner } from '../documents-core/signer-status.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import * as repo from './signing.repository.ts';
import { issueLink, revokeSigningLinks } from './signing-links.ts';
import {
  actionRequiredOf,
  currentTurn,
  groupOf,
  isSigningRole,
} from '../documents-core/signing-rules.ts';
import { lockDocument } from '../documents-core/document-lock.ts';
import { findDocumentById } from '../documents-core/documents.repository.ts';

/*
 * Transitions shared by the signing API, the sender endpoints, the mail worker and the
 * schedulers: whose turn comes next, and `pending` ⇄ `action_required`.
 */

/** The webhook payload of a signer event: the document list item plus the signer. */
export async function signerEventData(trx: Executor, doc: DocumentRow, signer: SignerRow) {
  return { ...(await documentEventData(trx, doc.org_id, doc.id)), signer: toSigner(signer) };
}

/**
 * Emails the signer a fresh link to sign now, marked as an invitation: if it cannot be delivered,
 * the document becomes `action_required`.
 */
export async function mailYourTurn(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  doc: DocumentRow,
  signer: SignerRow,
): Promise<void> {
  // An embedded signer's turn is shown by the sender's own site (README "Embedding").
  if (isEmbeddedSigner(signer)) return;
  const { url } = await issueLink(trx, deps, doc, signer);
  const org = await orgMailOf(trx, doc.org_id);
  await enqueueJob(trx, deps.clock, 'mail', {
    ...yourTurnMail({ doc, signer, ...org, link: url }),
    signingInvitation: { documentId: doc.id, signerId: signer.id },
  });
  await repo.updateSignerRow(trx, signer.id, { last_notified_at: deps.clock.now().toISOString() });
}

/**
 * Sequential signing, after a signer finished: every waiting member of the group whose turn it now
 * is becomes `sent` and gets a "your turn" email (none while others of the current group are still
 * signing). Nothing to do in parallel mode, where everyone was invited at once.
 */
export async function advanceTurn(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  doc: DocumentRow,
  meta: RequestMeta,
): Promise<void> {
  if (doc.signing_type === 'parallel') return;
  const waiting = currentTurn(doc, await listSigners(trx, doc.id)).filter(
    (s) => s.status === 'pending',
  );
  const now = deps.clock.now().toISOString();
  for (const next of waiting) {
    if (!(await moveSigner(trx, next.id, ['pending'], 'sent', { updated_at: now }))) continue;
    await mailYourTurn(trx, deps, doc, { ...next, status: 'sent' });
    await writeAudit(trx, deps.clock, {
      orgId: doc.org_id,
      documentId: doc.id,
      action: 'signer.notified',
      details: `It is now the turn of ${next.name} <${next.email}> (order ${next.position}, group ${groupOf(next)}); ${isEmbeddedSigner(next) ? 'embedded, not emailed' : 'emailed'}`,
      meta,
    });
  }
}

/** Moves an open document to `action_required` (once), tells the sender why, and emits the event. */
export async function requireSenderAction(
  trx: Executor,
  deps: Pick<AppDeps, 'clock'>,
  doc: DocumentRow,
  reason: string,
  meta: RequestMeta,
): Promise<void> {
  const now = deps.clock.now().toISOString();
  const moved = await moveDocument(trx, doc.id, ['pending'], 'action_required', {
    updated_at: now,
  });
  await writeAudit(trx, deps.clock, {
    orgId: doc.org_id,
    documentId: doc.id,
    action: 'document.action_required',
    details: reason,
    meta,
  });
  const admin = await repo.findOrgAdmin(trx, doc.org_id);
  if (admin)
    await enqueueJob(
      trx,
      deps.clock,
      'mail',
      actionRequiredMail({ doc, to: admin.admin_email, reason }),
    );
  // Already action_required for another reason: the sender is told, but the status event fired then.
  if (moved)
    await emitEvent(
      trx,
      deps.clock,
      doc.org_id,
      'document.action_required',
      await documentEventData(trx, doc.org_id, doc.id),
    );
}

/**
 * Returns an `action_required` document to `pending` when nothing needs the sender any more
 * (every undeliverable address corrected, every identity review decided). Call it inside the
 * transaction that resolved something; it does nothing otherwise. Returns the document's status.
 */
export async function resumeIfResolved(
  trx: Executor,
  deps: Pick<AppDeps, 'clock'>,
  documentId: string,
  meta: RequestMeta = UNKNOWN_ACTOR,
): Promise<DocumentStatus | undefined> {
  const doc = await findDocumentById(trx, documentId);
  if (!doc) return undefined;
  if (doc.status !== 'action_required') return doc.status;
  if (actionRequiredOf(doc, await listSigners(trx, doc.id)) !== null) return doc.status;
  const now = deps.clock.now().toISOString();
  if (!(await moveDocument(trx, doc.id, ['action_required'], 'pending', { updated_at: now })))
    return doc.status;
  await writeAudit(trx, deps.clock, {
    orgId: doc.org_id,
    documentId: doc.id,
    action: 'document.resumed',
    details: 'Nothing awaits the sender any more; signing resumes',
    meta,
  });
  return 'pending';
}

/**
 * For the signers module: the sender corrected the name or email of a signer of an open document.
 * When the email changed, the links mailed to the old address are revoked and a delivery failure
 * is forgotten (possibly returning the document to `pending`). Returns a fresh signing link to put
 * in the new invitation, or undefined for a `cc` recipient (who does not sign).
 */
export async function onSignerCorrected(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'clock'>,
  args: {
    doc: DocumentRow;
    signer: SignerRow;
    emailChanged: boolean;
    phoneChanged?: boolean;
    meta: RequestMeta;
  },
): Promise<string | undefined> {
  const { doc, signer, emailChanged, meta } = args;
  // A new phone: the texts that failed went to the old one.
  if (args.phoneChanged && signer.sms_failed_at) {
    await repo.updateSignerRow(trx, signer.id, { sms_failed_at: null, sms_error: null });
    await resumeIfResolved(trx, deps, doc.id, meta);
  }
  if (emailChanged) {
    await revokeSigningLinks(trx, deps, signer.id);
    await repo.updateSignerRow(trx, signer.id, {
      delivery_failed_at: null,
      delivery_error: null,
      last_notified_at: deps.clock.now().toISOString(),
    });
    await resumeIfResolved(trx, deps, doc.id, meta);
  }
  if (!isSigningRole(signer)) return undefined;
  return (await issueLink(trx, deps, doc, signer)).url;
}

/**
 * The mail worker gave up on a mail carrying a signing link (the server rejected the address, or
 * every retry failed): the signer is marked undeliverable and the document waits for the sender
 * to correct the address. Idempotent.
 */
export async function onInvitationUndeliverable(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  ref: { documentId: string; signerId: string; to: string },
  error: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocument(trx, ref.documentId);
    const signer = await repo.findSignerById(trx, ref.signerId);
    if (!doc || !signer || !isOpenDocument(doc.status) || signer.delivery_failed_at) return;
    if (isFinishedSigner(signer.status)) return;
    // A mail to an address the sender has since corrected says nothing about the new one.
    if (signer.email.toLowerCase() !== ref.to.toLowerCase()) return;
    const now = deps.clock.now().toISOString();
    await repo.updateSignerRow(trx, signer.id, {
      delivery_failed_at: now,
      delivery_error: error.slice(0, 500),
      updated_at: now,
    });
    await writeAudit(trx, deps.clock, {
      orgId: doc.org_id,
      documentId: doc.id,
      action: 'signer.invitation_failed',
      details: `The invitation to ${signer.name} <${signer.email}> could not be delivered: ${error.slice(0, 300)}`,
      meta: UNKNOWN_ACTOR,
    });
    await requireSenderAction(
      trx,
      deps,
      doc,
      `the invitation to ${signer.email} could not be delivered; correct the signer's email address`,
      UNKNOWN_ACTOR,
    );
  });
}
