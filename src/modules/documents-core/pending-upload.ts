import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import type { DocumentRow } from '../../db/database.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { StorageNotFound } from '../../storage/storage.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../audit/audit.ts';
import * as repo from './documents.repository.ts';
import { MAX_UPLOAD_BYTES, type UploadContentType } from './documents.schemas.ts';
import {
  discardObjects,
  ingestFile,
  newUploadKey,
  recordFile,
  refusalOf,
  tooLarge,
  type FileLimits,
} from './file-intake.ts';

/*
 * Uploads that bypass Signet: with the S3 driver a client PUTs the bytes straight into the bucket
 * through a presigned URL, so nothing has checked them when they land. The document keeps the key
 * it handed out (its pending upload) and the next use of the document (its detail, send, download)
 * settles it: the object is checked and hashed through the same path as an upload through Signet,
 * copied to a key only Signet writes, and becomes the document's file; or it is refused and deleted.
 */

/** A presigned PUT's target: apart from verified files, so a bucket lifecycle rule on `incoming/` can expire strays. */
export const newIncomingKey = (orgId: string, documentId: string, filename: string) =>
  `incoming/${newUploadKey(orgId, documentId, filename)}`;

/**
 * How long after its URL expired a pending upload is still looked for: the bucket checks the URL
 * when a PUT starts, so a slow 50 MB upload that started in time lands later.
 */
const LATE_ARRIVAL_MS = 60 * 60 * 1000;

interface PendingUpload extends FileLimits {
  key: string;
  expiresAt: string;
}

function pendingOf(doc: DocumentRow): PendingUpload | undefined {
  if (!doc.pending_upload_key) return undefined;
  return {
    key: doc.pending_upload_key,
    contentType: doc.pending_upload_content_type as UploadContentType,
    maxBytes: doc.pending_upload_max_bytes ?? MAX_UPLOAD_BYTES,
    textTags: doc.pending_upload_text_tags === 1,
    expiresAt: doc.pending_upload_expires_at ?? '',
  };
}

type Ref = { orgId: string; documentId: string };

async function current(deps: Pick<AppDeps, 'db'>, ref: Ref): Promise<DocumentRow> {
  const row = await repo.findDocument(deps.db, ref.orgId, ref.documentId);
  if (!row) throw notFound('Document');
  return row;
}

/**
 * Drops a refused upload and deletes its object. Throws the refusal when this request dropped it;
 * when another request settled the upload first, its outcome stands and the document is returned.
 */
async function refuse(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock'>,
  ref: Ref,
  pending: PendingUpload,
  refusal: AppError,
): Promise<DocumentRow> {
  const dropped = await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.clearPendingUpload(trx, ref.documentId, pending.key))) return false;
    await writeAudit(trx, deps.clock, {
      orgId: ref.orgId,
      documentId: ref.documentId,
      action: 'document.upload_refused',
      details: `Upload of ${pending.contentType} refused (${refusal.code}): ${refusal.message}`,
      meta: UNKNOWN_ACTOR,
    });
    return true;
  });
  await discardObjects(deps.storage, [pending.key]);
  if (!dropped) return current(deps, ref);
  throw refusal;
}

async function verify(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  doc: DocumentRow,
  pending: PendingUpload,
): Promise<DocumentRow> {
  const ref = { orgId: doc.org_id, documentId: doc.id };
  const object = await deps.storage.stat(pending.key);
  if (!object) {
    if (deps.clock.now().getTime() > Date.parse(pending.expiresAt) + LATE_ARRIVAL_MS) {
      await repo.clearPendingUpload(deps.db, doc.id, pending.key);
    }
    // Read again: the object may be missing because another request settled it since `doc` was read.
    return current(deps, ref);
  }
  if (object.size > pending.maxBytes) return refuse(deps, ref, pending, tooLarge(pending.maxBytes));

  let body: Readable;
  try {
    body = await deps.storage.get(pending.key);
  } catch (err) {
    // Deleted between the two calls: another request refused or settled it.
    if (err instanceof StorageNotFound) return current(deps, ref);
    throw err;
  }
  let file: Awaited<ReturnType<typeof ingestFile>>;
  try {
    // A fresh key per attempt: two requests verifying at once never write the same object, and a
    // second PUT to the still-valid URL can never change a file once it is recorded.
    file = await ingestFile(
      deps,
      newUploadKey(ref.orgId, ref.documentId, pending.key.split('/').at(-1)!),
      body,
      pending,
    );
  } catch (err) {
    const refusal = refusalOf(err, pending);
    if (refusal) return refuse(deps, ref, pending, refusal);
    // A read cut short because another request settled the upload meanwhile is no failure; other
    // storage or network trouble says nothing about the bytes, and the upload stays pending.
    const row = await current(deps, ref);
    if (row.pending_upload_key !== pending.key) return row;
    throw err;
  } finally {
    // A refused object is abandoned mid-read; its connection must not stay open.
    body.destroy();
  }
  await recordFile(deps, ref, file, {
    meta: UNKNOWN_ACTOR,
    note: 'sent to storage directly, verified on first use',
    // Only the request that still finds this upload pending records it; the others drop their copy.
    admit: (row) => row?.status === 'draft' && row.pending_upload_key === pending.key,
    changes: repo.NO_PENDING_UPLOAD,
  });
  await discardObjects(deps.storage, [pending.key]);
  return current(deps, ref);
}

/** Per app, the settlements under way, so concurrent requests on one instance share one verification. */
const underWay = new WeakMap<object, Map<string, Promise<DocumentRow>>>();

/**
 * The document with its pending direct upload settled: unchanged when it has none or its object
 * has not arrived; otherwise the object is verified (at most 50 MB or the declared size, magic
 * number, SHA-256 of the streamed bytes, image → PDF, page count) and becomes the document's file
 * (audit `document.uploaded`), or is refused: the pending upload is dropped, the object deleted,
 * `document.upload_refused` audited, and the refusal (413/415) thrown. Safe when several requests
 * or instances settle one document at once: exactly one records the file.
 */
export async function settlePendingUpload(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  doc: DocumentRow,
): Promise<DocumentRow> {
  const pending = pendingOf(doc);
  if (!pending) return doc;
  const running = underWay.get(deps) ?? new Map<string, Promise<DocumentRow>>();
  underWay.set(deps, running);
  const id = `${doc.id} ${pending.key}`;
  let settling = running.get(id);
  if (!settling) {
    settling = verify(deps, doc, pending).finally(() => running.delete(id));
    running.set(id, settling);
  }
  return settling;
}

/** True for the answers of `settlePendingUpload` that refuse the bytes (as opposed to failures of storage). */
export const isRefusal = (err: unknown) =>
  err instanceof AppError &&
  (err.code === 'unsupported_media_type' || err.code === 'payload_too_large');
