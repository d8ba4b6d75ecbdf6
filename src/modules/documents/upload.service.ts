import { Readable } from 'node:stream';
import type { AppDeps } from '../../app.ts';
import type { DocumentRow } from '../../db/database.ts';
import { AppError, invalidState } from '../../http/errors.ts';
import type { RequestMeta } from '../audit/audit.ts';
import * as repo from './documents.repository.ts';
import { MAX_UPLOAD_BYTES, type UploadContentType, type UploadInput } from './documents.schemas.ts';
import { getDocument, requireDocument, requireDraft, type Actor } from './documents.service.ts';
import { discardObjects, ingestFile, newUploadKey, recordFile, refusalOf, tooLarge, type FileLimits } from './file-intake.ts';
import { isRefusal, newIncomingKey, settlePendingUpload } from './pending-upload.ts';
import { signUploadToken, verifyUploadToken } from './upload-token.ts';
import { UploadAborted } from './stream-to-storage.ts';

/** Lifetime of an upload URL, in seconds. */
export const UPLOAD_URL_TTL_SECONDS = 3600;

/**
 * Step 1 with a driver clients write to directly (S3): a presigned PUT to a fresh key, recorded as
 * the document's pending upload. Bytes already sent to an earlier URL are settled first, as a PUT
 * through Signet would have been recorded at once (a refusal of them is only audited: the client is
 * replacing the file anyway); the earlier URL is void from then on.
 */
async function presignedUpload(deps: AppDeps, doc: DocumentRow, presign: NonNullable<AppDeps['storage']['presignPut']>, limits: FileLimits, filename: string) {
  await settlePendingUpload(deps, doc).catch((err: unknown) => {
    if (!isRefusal(err)) throw err;
  });
  const fileKey = newIncomingKey(doc.org_id, doc.id, filename);
  const uploadUrl = await presign(fileKey, limits.contentType, UPLOAD_URL_TTL_SECONDS);
  const previous = await deps.db.transaction().execute(async (trx) => {
    const current = await repo.lockDocumentForEdit(trx, doc.org_id, doc.id);
    requireDraft(current, 'upload a file');
    await repo.updateDocument(trx, doc.id, {
      pending_upload_key: fileKey,
      pending_upload_content_type: limits.contentType,
      pending_upload_max_bytes: limits.maxBytes,
      pending_upload_expires_at: new Date(deps.clock.now().getTime() + UPLOAD_URL_TTL_SECONDS * 1000).toISOString(),
    });
    return current.pending_upload_key;
  });
  if (previous) await discardObjects(deps.storage, [previous]);
  return { uploadUrl, fileKey };
}

/**
 * Step 1 of the upload: a URL the client PUTs the bytes to. Draft documents only. A declared
 * `fileSize` over 50 MB is refused now rather than after the client sent the bytes. With the local
 * driver the URL is Signet's own, carrying a signed token; with S3 it is a presigned PUT.
 */
export async function createUploadTicket(deps: AppDeps, actor: Actor, id: string, input: UploadInput) {
  const doc = await requireDocument(deps.db, actor.orgId, id);
  requireDraft(doc, 'upload a file');
  if (input.fileSize !== undefined && input.fileSize > MAX_UPLOAD_BYTES) {
    throw new AppError('payload_too_large', `fileSize ${input.fileSize} is over the limit of ${MAX_UPLOAD_BYTES} bytes (50 MB)`);
  }
  const limits: FileLimits = {
    contentType: (input.contentType as UploadContentType | undefined) ?? 'application/pdf',
    maxBytes: input.fileSize ?? MAX_UPLOAD_BYTES,
  };
  const filename = input.filename ?? 'document.pdf';
  const ticket = { expiresIn: UPLOAD_URL_TTL_SECONDS, method: 'PUT' as const, headers: { 'Content-Type': limits.contentType } };
  if (deps.storage.presignPut) {
    return { ...(await presignedUpload(deps, doc, deps.storage.presignPut.bind(deps.storage), limits, filename)), ...ticket };
  }
  const fileKey = newUploadKey(actor.orgId, id, filename);
  const token = signUploadToken(deps.secret, {
    documentId: id,
    orgId: actor.orgId,
    fileKey,
    ...limits,
    expiresAt: deps.clock.now().getTime() + UPLOAD_URL_TTL_SECONDS * 1000,
  });
  return { uploadUrl: `${deps.config.publicUrl}/uploads/${token}`, fileKey, ...ticket };
}

export interface IncomingUpload {
  token: string;
  /** The request's Content-Type header, as sent. */
  contentType: string | undefined;
  contentLength: number | undefined;
  /** The raw request body; undefined when the request had none. */
  body: Readable | undefined;
  meta: RequestMeta;
}

const mediaType = (header: string | undefined) => (header ?? '').split(';')[0].trim().toLowerCase();

/**
 * Step 2 of the upload, the PUT to the signed URL: streams the bytes to storage (hashing and
 * counting, never buffering them whole), checks them against the declared type, converts images
 * to a one-page PDF, then records the file on the document. A later upload in draft replaces the
 * file; the replaced objects are deleted.
 */
export async function receiveUpload(deps: AppDeps, upload: IncomingUpload) {
  const grant = verifyUploadToken(deps.secret, upload.token, deps.clock.now());
  const doc = await repo.findDocument(deps.db, grant.orgId, grant.documentId);
  if (!doc) throw invalidState('The document was deleted; it no longer accepts uploads');
  requireDraft(doc, 'upload a file');
  if (mediaType(upload.contentType) !== grant.contentType) {
    throw new AppError(
      'unsupported_media_type',
      `Send the file with Content-Type: ${grant.contentType}, the contentType given when this upload URL was requested`,
    );
  }
  if (upload.contentLength !== undefined && upload.contentLength > grant.maxBytes) throw tooLarge(grant.maxBytes);

  // A URL used a second time must not overwrite the file its first use gave the document: that
  // file stays intact until this upload has fully succeeded.
  const inUse = grant.fileKey === doc.original_file_key || grant.fileKey === doc.file_key;
  const key = inUse ? newUploadKey(grant.orgId, grant.documentId, grant.fileKey.split('/').at(-1)!) : grant.fileKey;
  let file;
  try {
    file = await ingestFile(deps.storage, key, upload.body ?? Readable.from([]), grant);
  } catch (err) {
    if (err instanceof UploadAborted) throw new AppError('validation_error', 'The upload was interrupted before every byte arrived');
    throw refusalOf(err, grant) ?? err;
  }
  await recordFile(deps, grant, file, {
    meta: upload.meta,
    admit: (current) => {
      if (!current) throw invalidState('The document was deleted while the file was uploading');
      requireDraft(current, 'upload a file');
      return true;
    },
  });
  return getDocument(deps, grant.orgId, grant.documentId);
}
