import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import type { AttachmentRow, Executor } from '../../db/database.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { headerDimensions, IMAGE_LIMITS, overBudget } from '../../images/image-limits.ts';
import { newId } from '../../ids.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { discardObjects, refusalOf, safeFilename } from '../documents-core/file-intake.ts';
import {
  UPLOAD_CONTENT_TYPES,
  type UploadContentType,
} from '../documents-core/documents.schemas.ts';
import { streamToStorage } from '../documents-core/stream-to-storage.ts';
import { invalidLink, resolveToken } from './signing-links.ts';
import { requireOpen } from '../documents-core/signing-rules.ts';
import * as repo from './signing.repository.ts';
import { lockDocument } from '../documents-core/document-lock.ts';

/*
 * Files a signer attaches through a `file` field (README, "Signer file uploads"): PDF, PNG, JPEG or WebP, at most
 * 10 MB, streamed to storage while counted, hashed and checked against the declared type (never
 * held whole). Each is an attachment of the document (`signer_upload`); a second upload for the
 * same field replaces the first. `complete` then names it: `values[fieldId] = attachmentId`.
 */

const SIGNER_UPLOAD_MAX_BYTES = 10 * 1024 * 1024;

const EXTENSION: Record<UploadContentType, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** Extensions a name may keep for each checked type (any other is replaced by EXTENSION's). */
const KEPT_EXTENSIONS: Record<UploadContentType, readonly string[]> = {
  'application/pdf': ['pdf'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/webp': ['webp'],
};

/**
 * The name a file keeps: what the signer chose, at most 200 characters, ending in an extension of
 * the type its bytes were checked to be. The signer does not choose what a downloader's computer
 * will take the file for: `invoice.html` sent as a PDF is kept as `invoice.pdf`.
 */
function attachmentName(chosen: string, fallback: string, type: UploadContentType): string {
  const base = chosen.trim() === '' ? fallback : chosen.trim();
  const match = /^(.*?)\.([A-Za-z0-9]{1,10})$/.exec(base);
  const kept = match && KEPT_EXTENSIONS[type].includes(match[2].toLowerCase());
  const ext = kept ? match[2] : EXTENSION[type];
  const stem = ((match ? match[1] : base) || fallback).slice(0, 199 - ext.length);
  return `${stem}.${ext}`;
}

/** The signer's current upload for each of their `file` fields: field id → attachment. */
export async function uploadsOf(
  db: Executor,
  documentId: string,
  signerId: string,
): Promise<Map<string, AttachmentRow>> {
  const rows = await db
    .selectFrom('attachments')
    .selectAll()
    .where('document_id', '=', documentId)
    .where('signer_id', '=', signerId)
    .where('kind', '=', 'signer_upload')
    .execute();
  return new Map(rows.map((r) => [r.field_id!, r]));
}

export interface FieldUpload {
  contentType: string | undefined;
  contentLength: number | undefined;
  filename: string | undefined;
  body: Readable | undefined;
}

/** Stores a signer's file for one of their `file` fields; answers the new attachment's id. */
export async function uploadFieldFile(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock'>,
  token: string,
  fieldId: string,
  upload: FieldUpload,
  meta: RequestMeta,
): Promise<{ attachmentId: string }> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  requireOpen(doc, signer);
  const field = await deps.db
    .selectFrom('fields')
    .selectAll()
    .where('document_id', '=', doc.id)
    .where('id', '=', fieldId)
    .executeTakeFirst();
  if (!field || field.assigned_to !== signer.position) throw notFound('Field');
  if (field.type !== 'file')
    throw new AppError(
      'invalid_state',
      `Field ${fieldId} is a ${field.type} field, not a file field`,
    );
  const stored = await intakeFieldFile(
    deps,
    upload,
    field.label,
    (id, name) => `orgs/${doc.org_id}/documents/${doc.id}/attachments/${id}/${name}`,
  );
  const { attachmentId, name, key, contentType, file } = stored;

  let replaced: AttachmentRow | undefined;
  try {
    replaced = await deps.db.transaction().execute(async (trx) => {
      // Locked like `complete`, so a completion never names an upload replaced meanwhile.
      const locked = await lockDocument(trx, doc.id);
      const current = await repo.findSignerById(trx, signer.id);
      if (!locked || !current) throw invalidLink();
      requireOpen(locked, current);
      const previous = (await uploadsOf(trx, doc.id, signer.id)).get(fieldId);
      if (previous) await trx.deleteFrom('attachments').where('id', '=', previous.id).execute();
      const now = deps.clock.now().toISOString();
      await trx
        .insertInto('attachments')
        .values({
          id: attachmentId,
          document_id: doc.id,
          name,
          file_key: key,
          content_type: contentType,
          file_size: file.size,
          created_at: now,
          kind: 'signer_upload',
          sha256: file.sha256,
          signer_id: signer.id,
          field_id: fieldId,
        })
        .execute();
      await writeAudit(trx, deps.clock, {
        orgId: doc.org_id,
        documentId: doc.id,
        action: 'signer.file_uploaded',
        details: `${current.name} <${current.email}> attached "${name}" (${contentType}, ${file.size} bytes, SHA-256 ${file.sha256}) to field ${fieldId}${previous ? `, replacing ${previous.id}` : ''}`,
        meta,
      });
      return previous;
    });
  } catch (err) {
    await discardObjects(deps.storage, [key]);
    throw err;
  }
  if (replaced) await discardObjects(deps.storage, [replaced.file_key]);
  return { attachmentId };
}

/** A file taken in for a `file` field: stored, counted, hashed and checked; not yet recorded anywhere. */
interface IntakenFile {
  attachmentId: string;
  name: string;
  key: string;
  contentType: UploadContentType;
  file: { size: number; sha256: string };
}

/**
 * Streams a `file` field's upload to storage at `keyOf(attachmentId, safe file name)`: the type
 * must be one of UPLOAD_CONTENT_TYPES and the bytes must be of it, at most 10 MB, an image within
 * its pixel budget; anything refused leaves nothing stored. The signing page's upload and the
 * campaign page's (before a document exists) both take files through here.
 */
export async function intakeFieldFile(
  deps: Pick<AppDeps, 'storage'>,
  upload: FieldUpload,
  fieldLabel: string,
  keyOf: (attachmentId: string, safeName: string) => string,
): Promise<IntakenFile> {
  const contentType = (upload.contentType ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase() as UploadContentType;
  if (!UPLOAD_CONTENT_TYPES.includes(contentType)) {
    throw new AppError(
      'unsupported_media_type',
      `Send the file as one of ${UPLOAD_CONTENT_TYPES.join(', ')}`,
    );
  }
  const limits = { contentType, maxBytes: SIGNER_UPLOAD_MAX_BYTES };
  if (upload.contentLength !== undefined && upload.contentLength > SIGNER_UPLOAD_MAX_BYTES)
    throw new AppError('payload_too_large', 'The file is larger than 10 MB');
  if (!upload.body)
    throw new AppError('unsupported_media_type', 'The request body is empty; send the file bytes');

  const attachmentId = newId('att');
  const name = attachmentName(upload.filename ?? '', fieldLabel || 'upload', contentType);
  const key = keyOf(attachmentId, safeFilename(name));
  // An image's first bytes are kept as they stream past, to read its pixel count from the header.
  const head = new HeadOf(IMAGE_LIMITS.headerBytes);
  const body = contentType === 'application/pdf' ? upload.body : upload.body.pipe(head);
  if (body !== upload.body) upload.body.once('error', (err) => head.destroy(err));
  let file: Awaited<ReturnType<typeof streamToStorage>>;
  try {
    file = await streamToStorage(deps.storage, key, body, limits);
  } catch (err) {
    await discardObjects(deps.storage, [key]);
    throw refusalOf(err, limits) ?? err;
  }
  if (file.size === 0) {
    await discardObjects(deps.storage, [key]);
    throw new AppError('unsupported_media_type', 'The request body is empty; send the file bytes');
  }
  if (body !== upload.body) {
    const refusal = await imageRefusal(head.bytes(), contentType);
    if (refusal) {
      await discardObjects(deps.storage, [key]);
      throw refusal;
    }
  }
  return { attachmentId, name, key, contentType, file: { size: file.size, sha256: file.sha256 } };
}

/** Passes bytes through unchanged, keeping a copy of the first `max` of them. */
class HeadOf extends Transform {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.kept < this.max) {
      const part = Buffer.from(chunk.subarray(0, this.max - this.kept));
      this.chunks.push(part);
      this.kept += part.length;
    }
    done(null, chunk);
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/**
 * A signer's image is refused over its pixel budget (docs/limits.md), read from its header
 * without decoding it, so a small file declaring 20000×20000 pixels never reaches anything that
 * would decode it (a viewer, a thumbnail, a later conversion).
 */
async function imageRefusal(
  head: Buffer,
  contentType: UploadContentType,
): Promise<AppError | undefined> {
  const dims = await headerDimensions(head);
  if (!dims)
    return new AppError(
      'unsupported_media_type',
      `The bytes cannot be read as a ${contentType} image`,
    );
  const over = overBudget(dims, IMAGE_LIMITS.uploadPixels, 'The image');
  return over ? new AppError('payload_too_large', over) : undefined;
}
