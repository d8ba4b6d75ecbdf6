import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { verificationResultMail } from '../../mail/templates.ts';
import { writeAudit, type RequestMeta } from '../audit/audit.ts';
import { requireDocument, type Actor } from '../documents/documents.service.ts';
import { findSigner } from '../signers/signers.repository.ts';
import * as repo from './signing.repository.ts';
import { requireSenderAction, resumeIfResolved } from './signing-flow.ts';
import { invalidLink, issueLink, resolveToken } from './signing-links.ts';
import { OPEN_DOCUMENT, requireOpen, verificationOf } from './signing-rules.ts';
import { SIGNING_LIMITS, type IdentityResultT, type VerificationInput, type VerificationResultT } from './signing.schemas.ts';

/*
 * Identity evidence (`requireKyc`): each signer and approver uploads a photo of an ID, stored as
 * an attachment of the document; the document is `action_required` until the sender approves or
 * rejects it. Rejected evidence may be replaced; approved evidence is final.
 */

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};
const EXTENSION: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** Stores the signer's ID photo and puts the document in `action_required` for the sender's review. */
export async function submitIdentity(
  deps: AppDeps,
  token: string,
  upload: { bytes: Buffer; contentType: string },
  meta: RequestMeta,
): Promise<IdentityResultT> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  requireOpen(doc, signer);
  const status = verificationOf(doc, signer);
  if (status === 'none') throw invalidState('This document does not ask for identity evidence');
  if (status === 'approved') throw invalidState('Your identity is already confirmed');
  const type = upload.contentType;
  if (!MAGIC[type]) throw new AppError('unsupported_media_type', 'Send the photo as image/png, image/jpeg or image/webp');
  if (upload.bytes.length === 0) throw new AppError('validation_error', 'The photo is empty', [{ path: 'body', message: 'must not be empty' }]);
  if (upload.bytes.length > SIGNING_LIMITS.identityMaxBytes) throw new AppError('payload_too_large', 'The photo is larger than 10 MB');
  if (!MAGIC[type](upload.bytes)) throw new AppError('unsupported_media_type', `The bytes are not a ${type} image`);

  // Stored before the transaction: a failed transaction leaves an orphan file, never a row without its file.
  const attachmentId = newId('att');
  const key = `documents/${doc.id}/attachments/${attachmentId}.${EXTENSION[type]}`;
  await deps.storage.put(key, Readable.from(upload.bytes), type);

  return deps.db.transaction().execute(async (trx) => {
    const locked = await repo.lockDocument(trx, doc.id);
    const current = await repo.findSignerById(trx, signer.id);
    if (!locked || !current) throw invalidLink();
    requireOpen(locked, current);
    if (verificationOf(locked, current) === 'approved') throw invalidState('Your identity is already confirmed');
    const now = deps.clock.now().toISOString();
    await trx
      .insertInto('attachments')
      .values({
        id: attachmentId,
        document_id: locked.id,
        name: `Identity evidence - ${current.name}.${EXTENSION[type]}`,
        file_key: key,
        content_type: type,
        file_size: upload.bytes.length,
        created_at: now,
        kind: 'identity_evidence',
        sha256: createHash('sha256').update(upload.bytes).digest('hex'),
        signer_id: current.id,
        field_id: null,
      })
      .execute();
    await repo.updateSignerRow(trx, current.id, { verification_status: 'pending', verification_note: null, updated_at: now });
    await writeAudit(trx, deps.clock, {
      orgId: locked.org_id,
      documentId: locked.id,
      action: 'signer.identity_submitted',
      details: `Identity evidence uploaded by ${current.name} <${current.email}> (attachment ${attachmentId}); awaiting review`,
      meta,
    });
    await requireSenderAction(trx, deps, locked, `${current.name} uploaded identity evidence to review (POST /api/v1/documents/${locked.id}/signers/${current.id}/verification)`, meta);
    const after = await repo.findDocumentById(trx, locked.id);
    return { attachmentId, verification: 'pending', documentStatus: (after?.status ?? locked.status) as IdentityResultT['documentStatus'] };
  });
}

/**
 * The sender's decision on a signer's identity evidence. Approve: the signer may complete.
 * Reject: the signer is emailed and may upload again. Either way the review is resolved, so the
 * document returns to `pending` unless something else still needs the sender.
 */
export async function decideVerification(
  deps: AppDeps,
  actor: Actor,
  documentId: string,
  signerId: string,
  input: VerificationInput,
): Promise<VerificationResultT> {
  return deps.db.transaction().execute(async (trx) => {
    await requireDocument(trx, actor.orgId, documentId);
    const doc = await repo.lockDocument(trx, documentId);
    const signer = await findSigner(trx, documentId, signerId);
    if (!doc) throw notFound('Document');
    if (!signer) throw notFound('Signer');
    if (!OPEN_DOCUMENT.includes(doc.status)) throw invalidState(`Cannot review identity evidence: the document is ${doc.status}`);
    const status = verificationOf(doc, signer);
    if (status !== 'pending') {
      throw invalidState(status === 'none' ? 'This document does not ask for identity evidence' : `No identity evidence awaits review (verification is ${status})`);
    }
    const approved = input.decision === 'approve';
    const now = deps.clock.now().toISOString();
    const note = approved ? null : (input.reason ?? null);
    await repo.updateSignerRow(trx, signer.id, { verification_status: approved ? 'approved' : 'rejected', verification_note: note, updated_at: now });
    await writeAudit(trx, deps.clock, {
      orgId: doc.org_id,
      documentId: doc.id,
      action: approved ? 'signer.identity_approved' : 'signer.identity_rejected',
      details: `Identity evidence of ${signer.name} <${signer.email}> ${approved ? 'approved' : `rejected${note ? `: ${note}` : ''}`}`,
      meta: actor.meta,
    });
    const { url } = await issueLink(trx, deps, doc, signer);
    await enqueueJob(trx, deps.clock, 'mail', verificationResultMail({ doc, signer, approved, note: note ?? undefined, link: url }));
    const documentStatus = (await resumeIfResolved(trx, deps, doc.id, actor.meta)) ?? doc.status;
    return {
      documentId: doc.id,
      signerId: signer.id,
      verification: approved ? 'approved' : 'rejected',
      documentStatus: documentStatus as VerificationResultT['documentStatus'],
    };
  });
}
