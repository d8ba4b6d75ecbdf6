import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { writeAudit } from '../audit/audit.ts';
import { requireDocument, type Actor } from '../documents-core/document-access.ts';
import { settlePendingUpload } from '../documents-core/pending-upload.ts';
import { contentDisposition } from '../../http/content-disposition.ts';

interface DownloadInfo {
  documentId: string;
  key: string;
  /** True once completed: the signed PDF. */
  signed: boolean;
  size: number;
  /** The `Content-Disposition` header value. */
  disposition: string;
}

/**
 * Which PDF a download returns: the signed PDF once `completed`, otherwise the PDF signers see
 * (the upload, or its conversion from an image). 404 `not_found` before any upload. A pending
 * direct upload is settled first.
 */
export async function findDownload(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  orgId: string,
  id: string,
): Promise<DownloadInfo> {
  const doc = await settlePendingUpload(deps, await requireDocument(deps.db, orgId, id));
  const signed = doc.status === 'completed';
  const key = signed ? doc.signed_file_key : doc.file_key;
  if (!key) {
    throw new AppError(
      'not_found',
      signed
        ? 'The signed PDF of this document is not available'
        : 'No file has been uploaded for this document yet',
    );
  }
  const stat = await deps.storage.stat(key);
  // A key in the database without its object is damage, not a client error: a 500, logged.
  if (!stat) throw new Error(`Document ${doc.id}: stored object ${key} is missing`);
  // The API names the file "<name> - Signed.pdf" whatever the status; kept to the letter.
  return {
    documentId: doc.id,
    key,
    signed,
    size: stat.size,
    disposition: contentDisposition('attachment', `${doc.name} - Signed.pdf`),
  };
}

/** The download itself: the file's stream, after the audit entry `document.downloaded`. */
export async function openDownload(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  actor: Actor,
  id: string,
): Promise<DownloadInfo & { stream: Readable }> {
  const file = await findDownload(deps, actor.orgId, id);
  await writeAudit(deps.db, deps.clock, {
    orgId: actor.orgId,
    documentId: file.documentId,
    action: 'document.downloaded',
    details: file.signed ? 'Signed PDF downloaded' : 'PDF downloaded',
    meta: actor.meta,
  });
  return { ...file, stream: await deps.storage.get(file.key) };
}
