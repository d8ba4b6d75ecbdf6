import { createHash } from 'node:crypto';
import { orgMailOf } from '../orgs/org-name.ts';
import { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import type { Executor } from '../../db/database.ts';
import { headerDimensions, IMAGE_LIMITS, overBudget } from '../../images/image-limits.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { verificationResultMail } from '../../mail/identity-mails.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { requireDocument, type Actor } from '../documents-core/document-access.ts';
import { findSigner } from '../documents-core/signers.repository.ts';
import * as repo from './signing.repository.ts';
import { requireSenderAction, resumeIfResolved } from './signing-flow.ts';
import { invalidLink, issueLink, resolveToken } from './signing-links.ts';
import { requireOpen, verificationOf } from '../documents-core/signing-rules.ts';
import { isOpenDocument } from '../documents-core/document-status.ts';
import {
  SIGNING_LIMITS,
  type IdentityResultT,
  type VerificationInput,
  type VerificationResultT,
} from './signing.schemas.ts';
import { lockDocument } from '../documents-core/document-lock.ts';
import { findDocumentById } from '../documents-core/documents.repository.ts';

/*
 * Identity evidence (`requireKyc`): each signer and approver uploads a photo of an ID, stored as
 * an attachment of the document; the document is `action_required` until the sender approves or
 * rejects it. Rejected evidence may be replaced; approved evidence is final.
 *
 * Bounded, since the signing link may be anonymous (a `requireKyc` campaign): a photo over
 * `IMAGE_LIMITS.evidencePixels` is refused from its header; an upload while evidence awaits
 * review replaces that evidence (its file is deleted) and mails nobody again; at most
 * `IDENTITY_MAX_ATTEMPTS` uploads between two reviews, after which the sender must review.
 */

const tooManyAttempts = (limit: number) =>
  invalidState(
    `You have sent identity evidence ${limit} times; the sender must review it before you can send another`,
  );

/**
 * What can be refused from the token alone, before the request body is read (onRequest): a bad
 * link, a document that does not ask for evidence or is finished, attempts used up.
 */
export async function precheckIdentity(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  token: string,
): Promise<void> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  requireOpen(doc, signer);
  const status = verificationOf(doc, signer);
  if (status === 'none') throw invalidState('This document does not ask for identity evidence');
  if (status === 'approved') throw invalidState('Your identity is already confirmed');
  const limit = deps.config.limits.identityAttempts;
  if (limit > 0 && (signer.identity_attempts ?? 0) >= limit) throw tooManyAttempts(limit);
}

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) =>
    b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' &&
    b.subarray(8, 12).toString('latin1') === 'WEBP',
};
const EXTENSION: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** Stores the signer's ID photo and puts the document in `action_required` for the sender's review. */
export async function submitIdentity(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock'>,
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
  if (!MAGIC[type])
    throw new AppError(
      'unsupported_media_type',
      'Send the photo as image/png, image/jpeg or image/webp',
    );
  if (upload.bytes.length === 0)
    throw new AppError('validation_error', 'The photo is empty', [
      { path: 'body', message: 'must not be empty' },
    ]);
  if (upload.bytes.length > SIGNING_LIMITS.identityMaxBytes)
    throw new AppError('payload_too_large', 'The photo is larger than 10 MB');
  if (!MAGIC[type](upload.bytes))
    throw new AppError('unsupported_media_type', `The bytes are not a ${type} image`);
  const dims = await headerDimensions(upload.bytes);
  if (!dims)
    throw new AppError('unsupported_media_type', `The bytes cannot be read as a ${type} image`);
  const over = overBudget(dims, IMAGE_LIMITS.evidencePixels, 'The photo');
  if (over) throw new AppError('payload_too_large', over);
  const limit = deps.config.limits.identityAttempts;

  // Stored before the transaction: a failed transaction leaves an orphan file, never a row without its file.
  const attachmentId = newId('att');
  const key = `documents/${doc.id}/attachments/${attachmentId}.${EXTENSION[type]}`;
  await deps.storage.put(key, Readable.from(upload.bytes), type);

  // The replaced evidence's file goes once the transaction has committed.
  const replacedKey: { value?: string } = {};
  return deps.db
    .transaction()
    .execute(async (trx) => {
      const locked = await lockDocument(trx, doc.id);
      const current = await repo.findSignerById(trx, signer.id);
      if (!locked || !current) throw invalidLink();
      requireOpen(locked, current);
      const status = verificationOf(locked, current);
      if (status === 'approved') throw invalidState('Your identity is already confirmed');
      if (limit > 0 && (current.identity_attempts ?? 0) >= limit) throw tooManyAttempts(limit);
      const now = deps.clock.now().toISOString();
      // Evidence still awaiting review is replaced, not kept beside the new one.
      const replaced = status === 'pending' ? await latestEvidence(trx, current.id) : undefined;
      if (replaced) {
        await trx.deleteFrom('attachments').where('id', '=', replaced.id).execute();
        replacedKey.value = replaced.file_key;
      }
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
      await repo.updateSignerRow(trx, current.id, {
        verification_status: 'pending',
        verification_note: null,
        identity_attempts: (current.identity_attempts ?? 0) + 1,
        updated_at: now,
      });
      await writeAudit(trx, deps.clock, {
        orgId: locked.org_id,
        documentId: locked.id,
        action: 'signer.identity_submitted',
        details:
          `Identity evidence uploaded by ${current.name} <${current.email}> (attachment ${attachmentId}` +
          `${replaced ? `, replacing ${replaced.id}, which was awaiting review` : ''}); awaiting review`,
        meta,
      });
      // One review, one request to the sender: a replacement joins the review already asked for.
      if (!replaced) {
        await requireSenderAction(
          trx,
          deps,
          locked,
          `${current.name} uploaded identity evidence to review (POST /api/v1/documents/${locked.id}/signers/${current.id}/verification)`,
          meta,
        );
      }
      const after = await findDocumentById(trx, locked.id);
      return {
        attachmentId,
        verification: 'pending' as const,
        documentStatus: after?.status ?? locked.status,
      };
    })
    .then(
      async (result) => {
        if (replacedKey.value) await deps.storage.delete(replacedKey.value).catch(() => undefined);
        return result;
      },
      async (err: unknown) => {
        await deps.storage.delete(key).catch(() => undefined);
        throw err;
      },
    );
}

/** The signer's newest identity evidence: the one awaiting review while verification is `pending`. */
function latestEvidence(trx: Executor, signerId: string) {
  return trx
    .selectFrom('attachments')
    .select(['id', 'file_key'])
    .where('signer_id', '=', signerId)
    .where('kind', '=', 'identity_evidence')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/**
 * The sender's decision on a signer's identity evidence. Approve: the signer may complete.
 * Reject: the signer is emailed and may upload again. Either way the review is resolved, so the
 * document returns to `pending` unless something else still needs the sender.
 */
export async function decideVerification(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  actor: Actor,
  documentId: string,
  signerId: string,
  input: VerificationInput,
): Promise<VerificationResultT> {
  return deps.db.transaction().execute(async (trx) => {
    await requireDocument(trx, actor.orgId, documentId);
    const doc = await lockDocument(trx, documentId);
    const signer = await findSigner(trx, documentId, signerId);
    if (!doc) throw notFound('Document');
    if (!signer) throw notFound('Signer');
    if (!isOpenDocument(doc.status))
      throw invalidState(`Cannot review identity evidence: the document is ${doc.status}`);
    const status = verificationOf(doc, signer);
    if (status !== 'pending') {
      throw invalidState(
        status === 'none'
          ? 'This document does not ask for identity evidence'
          : `No identity evidence awaits review (verification is ${status})`,
      );
    }
    const approved = input.decision === 'approve';
    const now = deps.clock.now().toISOString();
    const note = approved ? null : (input.reason ?? null);
    // A review is the sender acting: the signer may send evidence again (IDENTITY_MAX_ATTEMPTS) if rejected.
    await repo.updateSignerRow(trx, signer.id, {
      verification_status: approved ? 'approved' : 'rejected',
      verification_note: note,
      identity_attempts: 0,
      updated_at: now,
    });
    await writeAudit(trx, deps.clock, {
      orgId: doc.org_id,
      documentId: doc.id,
      action: approved ? 'signer.identity_approved' : 'signer.identity_rejected',
      details: `Identity evidence of ${signer.name} <${signer.email}> ${approved ? 'approved' : `rejected${note ? `: ${note}` : ''}`}`,
      meta: actor.meta,
    });
    const { url } = await issueLink(trx, deps, doc, signer);
    await enqueueJob(
      trx,
      deps.clock,
      'mail',
      verificationResultMail({
        doc,
        signer,
        approved,
        note: note ?? undefined,
        link: url,
        orgLocale: (await orgMailOf(trx, doc.org_id)).orgLocale,
      }),
    );
    const documentStatus = (await resumeIfResolved(trx, deps, doc.id, actor.meta)) ?? doc.status;
    return {
      documentId: doc.id,
      signerId: signer.id,
      verification: approved ? 'approved' : 'rejected',
      documentStatus: documentStatus as VerificationResultT['documentStatus'],
    };
  });
}
