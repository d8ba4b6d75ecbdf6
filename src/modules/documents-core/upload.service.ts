import { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import type { DocumentRow } from '../../db/database.ts';
import { AppError, invalidState } from '../../http/errors.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import * as repo from './documents.repository.ts';
import { MAX_UPLOAD_BYTES, type UploadContentType, type UploadInput } from './documents.schemas.ts';
import { getDocument, requireDocument, requireDraft, type Actor } from './document-access.ts';
import {
  discardObjects,
  ingestFile,
  newUploadKey,
  recordFile,
  refusalOf,
  tooLarge,
  type FileLimits,
} from './file-intake.ts';
import { isRefusal, newIncomingKey, settlePendingUpload } from './pending-upload.ts';
import { signUploadToken, verifyUploadToken, type UploadGrant } from './upload-token.ts';
import { UploadAborted } from './stream-to-storage.ts';
import { lockDocumentForEdit } from './document-lock.ts';

/** Lifetime of an upload URL, in seconds. */
export const UPLOAD_URL_TTL_SECONDS = 3600;

/**
 * Step 1 with a driver clients write to directly (S3): a presigned PUT to a fresh key, recorded as
 * the document's pending upload. Bytes already sent to an earlier URL are settled first, as a PUT
 * through Signet would have been recorded at once (a refusal of them is only audited: the client is
 * replacing the file anyway); the earlier URL is void from then on.
 */
async function presignedUpload(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  doc: DocumentRow,
  presign: NonNullable<AppDeps['storage']['presignPut']>,
  limits: FileLimits,
  filename: string,
) {
  await settlePendingUpload(deps, doc).catch((err: unknown) => {
    if (!isRefusal(err)) throw err;
  });
  const fileKey = newIncomingKey(doc.org_id, doc.id, filename);
  const uploadUrl = await presign(fileKey, limits.contentType, UPLOAD_URL_TTL_SECONDS);
  const previous = await deps.db.transaction().execute(async (trx) => {
    const current = await lockDocumentForEdit(trx, doc.org_id, doc.id);
    requireDraft(current, 'upload a file');
    await repo.updateDocument(trx, doc.id, {
      pending_upload_key: fileKey,
      pending_upload_content_type: limits.contentType,
      pending_upload_max_bytes: limits.maxBytes,
      pending_upload_text_tags: limits.textTags ? 1 : null,
      pending_upload_expires_at: new Date(
        deps.clock.now().getTime() + UPLOAD_URL_TTL_SECONDS * 1000,
      ).toISOString(),
    });
    return current.pending_upload_key;
  });
  if (previous) await discardObjects(deps.storage, [previous]);
  return { uploadUrl, fileKey };
}

/** What a step-1 request asks for: the type and size limit bound to the URL, and the file's name. */
export function uploadRequest(input: UploadInput): { limits: FileLimits; filename: string } {
  if (input.fileSize !== undefined && input.fileSize > MAX_UPLOAD_BYTES) {
    throw new AppError(
      'payload_too_large',
      `fileSize ${input.fileSize} is over the limit of ${MAX_UPLOAD_BYTES} bytes (50 MB)`,
    );
  }
  return {
    limits: {
      contentType: (input.contentType as UploadContentType | undefined) ?? 'application/pdf',
      maxBytes: input.fileSize ?? MAX_UPLOAD_BYTES,
      textTags: input.textTags === true,
    },
    filename: input.filename ?? 'document.pdf',
  };
}

const ticketOf = (limits: FileLimits) => ({
  expiresIn: UPLOAD_URL_TTL_SECONDS,
  method: 'PUT' as const,
  headers: { 'Content-Type': limits.contentType },
  textTags: limits.textTags === true,
});

/** Step 1 answered with Signet's own upload URL, `PUBLIC_URL/uploads/{token}`, the token carrying the grant. */
export function signetUploadTicket(
  deps: Pick<AppDeps, 'config' | 'clock' | 'secret'>,
  grant: Omit<UploadGrant, 'expiresAt'>,
) {
  const token = signUploadToken(deps.secret, {
    ...grant,
    expiresAt: deps.clock.now().getTime() + UPLOAD_URL_TTL_SECONDS * 1000,
  });
  return {
    uploadUrl: `${deps.config.publicUrl}/uploads/${token}`,
    fileKey: grant.fileKey,
    ...ticketOf(grant),
  };
}

/**
 * Step 1 of the upload: a URL the client PUTs the bytes to. Draft documents only. A declared
 * `fileSize` over 50 MB is refused now rather than after the client sent the bytes. With the local
 * driver the URL is Signet's own, carrying a signed token; with S3 it is a presigned PUT.
 */
export async function createUploadTicket(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock' | 'secret' | 'pdf'>,
  actor: Actor,
  id: string,
  input: UploadInput,
) {
  const doc = await requireDocument(deps.db, actor.orgId, id);
  requireDraft(doc, 'upload a file');
  const { limits, filename } = uploadRequest(input);
  if (deps.storage.presignPut) {
    return {
      ...(await presignedUpload(
        deps,
        doc,
        deps.storage.presignPut.bind(deps.storage),
        limits,
        filename,
      )),
      ...ticketOf(limits),
    };
  }
  return signetUploadTicket(deps, {
    target: 'document',
    targetId: id,
    orgId: actor.orgId,
    fileKey: newUploadKey(actor.orgId, id, filename),
    ...limits,
  });
}

interface IncomingUpload {
  token: string;
  /** The request's Content-Type header, as sent. */
  contentType: string | undefined;
  contentLength: number | undefined;
  /** The raw request body; undefined when the request had none. */
  body: Readable | undefined;
  meta: RequestMeta;
}

const mediaType = (header: string | undefined) => (header ?? '').split(';')[0].trim().toLowerCase();

/** Takes the body of an upload whose token and headers were checked, for one kind of target; answers the target's detail. */
export type GrantedUpload = (
  grant: UploadGrant,
  body: Readable,
  meta: RequestMeta,
) => Promise<unknown>;

/**
 * Step 2 of the upload, the PUT to the signed URL: checks the token and the request's headers,
 * then hands the body to the receiver of the token's target (a document here, or a template).
 */
export async function receiveUpload(
  deps: Pick<AppDeps, 'clock' | 'secret'>,
  upload: IncomingUpload,
  receivers: Record<UploadGrant['target'], GrantedUpload>,
) {
  const grant = verifyUploadToken(deps.secret, upload.token, deps.clock.now());
  if (mediaType(upload.contentType) !== grant.contentType) {
    throw new AppError(
      'unsupported_media_type',
      `Send the file with Content-Type: ${grant.contentType}, the contentType given when this upload URL was requested`,
    );
  }
  if (upload.contentLength !== undefined && upload.contentLength > grant.maxBytes)
    throw tooLarge(grant.maxBytes);
  return receivers[grant.target](grant, upload.body ?? Readable.from([]), upload.meta);
}

/**
 * Ingests the bytes of a granted upload (streamed to storage while hashing and counting, never
 * buffered whole; checked against the declared type; images converted to a one-page PDF). A URL
 * used a second time must not overwrite the file its first use gave the target: that file stays
 * intact until this upload has fully succeeded, so the bytes then go to a fresh key beside it.
 */
export async function ingestGranted(
  deps: Pick<AppDeps, 'storage' | 'pdf'>,
  grant: UploadGrant,
  body: Readable,
  fresh: () => string,
  current: { file_key: string | null; original_file_key: string | null },
) {
  const inUse = grant.fileKey === current.original_file_key || grant.fileKey === current.file_key;
  try {
    return await ingestFile(deps, inUse ? fresh() : grant.fileKey, body, grant);
  } catch (err) {
    if (err instanceof UploadAborted)
      throw new AppError(
        'validation_error',
        'The upload was interrupted before every byte arrived',
      );
    throw refusalOf(err, grant) ?? err;
  }
}

/**
 * Step 2 for a document: checks it is still a draft, ingests the bytes, then records the file on
 * the document. A later upload in draft replaces the file; the replaced objects are deleted.
 */
export async function receiveDocumentUpload(
  deps: Pick<AppDeps, 'db' | 'dialect' | 'storage' | 'clock' | 'pdf'>,
  grant: UploadGrant,
  body: Readable,
  meta: RequestMeta,
) {
  const doc = await repo.findDocument(deps.db, grant.orgId, grant.targetId);
  if (!doc) throw invalidState('The document was deleted; it no longer accepts uploads');
  requireDraft(doc, 'upload a file');
  const file = await ingestGranted(
    deps,
    grant,
    body,
    () => newUploadKey(grant.orgId, grant.targetId, grant.fileKey.split('/').at(-1)!),
    doc,
  );
  const ref = { orgId: grant.orgId, documentId: grant.targetId };
  await recordFile(deps, ref, file, {
    meta,
    admit: (current) => {
      if (!current) throw invalidState('The document was deleted while the file was uploading');
      requireDraft(current, 'upload a file');
      return true;
    },
  });
  return getDocument(deps, grant.orgId, grant.targetId);
}
