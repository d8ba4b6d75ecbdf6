import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import type { DocumentRow, DocumentUpdate } from '../../db/database.ts';
import { AppError } from '../../http/errors.ts';
import { ImageConversionError } from '../../pdf/image-to-pdf.ts';
import { UnreadablePdfError } from '../../pdf/page-count.ts';
import type { Storage } from '../../storage/storage.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import * as repo from './documents.repository.ts';
import type { UploadContentType } from './documents.schemas.ts';
import { type IntakeDeps, pdfOf } from './shown-pdf.ts';
import { streamToStorage, UploadTooLarge, UploadTypeMismatch } from './stream-to-storage.ts';
import { replaceTagFields, WITHOUT_TAGS, type ReadTags } from './tag-intake.ts';
import { lockDocument } from './document-lock.ts';

/*
 * The one way a document gets its file, whichever way the bytes come: through Signet's upload URL
 * (local driver) or from an object a client PUT straight into the bucket (S3 driver). Both stream
 * the bytes through `streamToStorage` (size limit, magic number, SHA-256), make the PDF signers
 * see, and record the file on the locked document.
 */

const TYPE_NAMES: Record<UploadContentType, string> = {
  'application/pdf': 'a PDF',
  'image/png': 'a PNG image',
  'image/jpeg': 'a JPEG image',
  'image/webp': 'a WEBP image',
};

/** Where this document's own files live; only objects under it are ever deleted on replacement. */
const documentPrefix = (orgId: string, documentId: string) =>
  `orgs/${orgId}/documents/${documentId}/`;

/**
 * A filename safe as the last segment of a storage key on every driver: letters, digits, `.`,
 * `-` and `_` only, no leading dot (so never `.` or `..`), at most 100 characters.
 */
export function safeFilename(name: string): string {
  const cleaned = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-100);
  return cleaned === '' ? 'document' : cleaned;
}

/** A new storage key under `prefix`: a random folder per call, so no two writers share an object. */
export const newKeyUnder = (prefix: string, filename: string) =>
  `${prefix}${randomBytes(12).toString('base64url')}/${safeFilename(filename)}`;

/** A new storage key for a document's file. */
export const newUploadKey = (orgId: string, documentId: string, filename: string) =>
  newKeyUnder(documentPrefix(orgId, documentId), filename);

/** The columns a document or template records its file in. */
export const fileColumns = (file: IngestedFile) => ({
  file_key: file.pdfKey,
  original_file_key: file.key,
  original_content_type: file.contentType,
  file_size: file.size,
  document_hash: file.sha256,
  page_count: file.pageCount,
  shown_file_hash: file.shownHash,
});

/** The objects a file occupies in storage. */
export const writtenKeys = (file: IngestedFile) =>
  file.pdfKey === file.key ? [file.key] : [file.key, file.pdfKey];

/** The objects of a replaced file that may go: those under the owner's own prefix that the new file does not use. */
export const staleKeys = (
  replaced: { file_key: string | null; original_file_key: string | null },
  prefix: string,
  written: string[],
) =>
  new Set(
    [replaced.file_key, replaced.original_file_key].filter(
      (k): k is string => !!k && k.startsWith(prefix) && !written.includes(k),
    ),
  );

/** What the bytes must be: the type declared when the upload was requested, and at most `maxBytes`. */
export interface FileLimits {
  contentType: UploadContentType;
  maxBytes: number;
  /** Whether the file's text tags become fields (and are removed from the file signers see). */
  textTags?: boolean;
}

/** A file received, checked and stored with its PDF, not yet recorded on the document. */
interface IngestedFile {
  /** The bytes exactly as received. */
  key: string;
  /** The PDF signers see: `key` itself, or the conversion of an image stored next to it. */
  pdfKey: string;
  contentType: UploadContentType;
  size: number;
  sha256: string;
  pageCount: number | null;
  /** The text tags read (when asked for); `pdfKey` is then the file without them, if it had any. */
  tags: ReadTags | null;
  /** SHA-256 of `pdfKey` when tags were removed from the upload; null otherwise. */
  shownHash: string | null;
}

/** Deletes objects that ended up unused; a failure only leaves an unreferenced object behind. */
export async function discardObjects(storage: Storage, keys: Iterable<string>): Promise<void> {
  await Promise.all([...keys].map((key) => storage.delete(key).catch(() => undefined)));
}

/**
 * Streams `body` into storage at `key` while checking it (never holding it whole), then makes its
 * PDF. Rejects with the errors of `streamToStorage`, `UnreadablePdfError` or
 * `ImageConversionError` (`refusalOf` turns them into the API's answer), having deleted whatever
 * it wrote.
 */
export async function ingestFile(
  deps: IntakeDeps,
  key: string,
  body: Readable,
  limits: FileLimits,
): Promise<IngestedFile> {
  const { storage } = deps;
  try {
    const file = await streamToStorage(storage, key, body, limits);
    const pdf = await pdfOf(deps, key, limits.contentType, file.size, !!limits.textTags);
    return {
      key,
      pdfKey: pdf.pdfKey,
      contentType: limits.contentType,
      size: file.size,
      sha256: file.sha256,
      pageCount: pdf.pageCount,
      tags: pdf.tags ?? (limits.textTags ? { found: [], count: 0, failure: null } : null),
      shownHash: pdf.shownHash ?? null,
    };
  } catch (err) {
    await discardObjects(storage, [key, `${key}${WITHOUT_TAGS}`]);
    throw err;
  }
}

export const tooLarge = (maxBytes: number) =>
  new AppError(
    'payload_too_large',
    `The file is larger than the ${maxBytes} bytes this upload URL allows`,
  );

/** The API's answer when the bytes themselves are unacceptable; undefined for any other failure (storage, network). */
export function refusalOf(err: unknown, limits: FileLimits): AppError | undefined {
  if (err instanceof UploadTooLarge) return tooLarge(limits.maxBytes);
  if (err instanceof UploadTypeMismatch) {
    const expected = TYPE_NAMES[limits.contentType];
    const message = err.empty
      ? `The request body is empty; send the bytes of ${expected}`
      : `The bytes are not ${expected}${err.sniffed ? ` (they look like ${TYPE_NAMES[err.sniffed]})` : ''}; request an upload URL with the file's real contentType`;
    return new AppError('unsupported_media_type', message);
  }
  if (err instanceof UnreadablePdfError)
    return new AppError(
      err.reason === 'too_large' ? 'payload_too_large' : 'unsupported_media_type',
      err.message,
      undefined,
      undefined,
      err.cause,
    );
  if (err instanceof ImageConversionError) {
    return new AppError(
      err.reason === 'too_large' ? 'payload_too_large' : 'unsupported_media_type',
      err.message,
    );
  }
  return undefined;
}

interface RecordOptions {
  meta: RequestMeta;
  /** Appended to the audit entry's details. */
  note?: string;
  /**
   * Decides on the locked row whether the file may still become the document's; it may throw the
   * answer instead. When it declines, the file's objects are deleted and nothing is recorded.
   */
  admit(current: DocumentRow | undefined): boolean;
  /** More columns to set in the same update. */
  changes?: DocumentUpdate;
}

/**
 * Makes an ingested file the document's file: the file columns and the audit entry
 * `document.uploaded` in one transaction on the locked row, then the objects of the file it
 * replaced are deleted. Returns false, having deleted the new file's objects, when `admit`
 * declined; rethrows (likewise) whatever the transaction threw.
 */
export async function recordFile(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock'>,
  ref: { orgId: string; documentId: string },
  file: IngestedFile,
  options: RecordOptions,
): Promise<boolean> {
  const written = writtenKeys(file);
  const details =
    `Uploaded ${file.contentType} (${file.size} bytes, SHA-256 ${file.sha256})` +
    (file.contentType !== 'application/pdf'
      ? '; converted to a 1-page PDF'
      : file.pageCount === null
        ? ''
        : `; ${file.pageCount} page(s)`) +
    (file.tags ? `; ${file.tags.count} text tag(s)` : '') +
    (options.note ? `; ${options.note}` : '');
  let replaced: DocumentRow | undefined;
  try {
    replaced = await deps.db.transaction().execute(async (trx) => {
      // Locked, so two files being recorded at once see each other's result and each deletes exactly the file it replaced.
      const current = await lockDocument(trx, ref.documentId, ref.orgId);
      if (!options.admit(current)) return undefined;
      const now = deps.clock.now().toISOString();
      // Each intake replaces the warnings of the one before.
      const warnings = file.tags
        ? await replaceTagFields(trx, ref.documentId, file.tags, now)
        : null;
      await repo.updateDocument(trx, ref.documentId, {
        ...options.changes,
        ...fileColumns(file),
        warnings,
        updated_at: now,
      });
      await writeAudit(trx, deps.clock, {
        orgId: ref.orgId,
        documentId: ref.documentId,
        action: 'document.uploaded',
        details,
        meta: options.meta,
      });
      return current;
    });
  } catch (err) {
    await discardObjects(deps.storage, written);
    throw err;
  }
  if (!replaced) {
    await discardObjects(deps.storage, written);
    return false;
  }
  // Only this document's own files: a file shared with a template is never deleted from here.
  await discardObjects(
    deps.storage,
    staleKeys(replaced, documentPrefix(ref.orgId, ref.documentId), written),
  );
  return true;
}
