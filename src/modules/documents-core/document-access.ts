import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import type { DocumentRow, Executor } from '../../db/database.ts';
import { authOf } from '../../http/auth.ts';
import { invalidState, notFound, validation } from '../../http/errors.ts';
import { requestMeta } from '../../http/request-meta.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import * as repo from './documents.repository.ts';
import { findDocumentDetail } from './document-detail.query.ts';
import { toDocumentDetail, toDocumentListItem } from './documents.mappers.ts';
import { settlePendingUpload } from './pending-upload.ts';

/*
 * What every document use case shares: the actor, finding a document of the organization or
 * 404, the draft rule, the document's detail and its event payload.
 */

/** Who is acting: the organization of the API key and the request's origin, for the audit log. */
export interface Actor {
  orgId: string;
  meta: RequestMeta;
}

/** The organization of the API key and the request's origin. */
export function actorOf(request: FastifyRequest): Actor {
  return { orgId: authOf(request).orgId, meta: requestMeta(request) };
}

/** The live document of the actor's organization, or 404. */
export async function requireDocument(
  db: Executor,
  orgId: string,
  id: string,
): Promise<DocumentRow> {
  const row = await repo.findDocument(db, orgId, id);
  if (!row) throw notFound('Document');
  return row;
}

/** Refuses edits outside `draft`. */
export function requireDraft(doc: DocumentRow, action: string): void {
  if (doc.status !== 'draft')
    throw invalidState(`Cannot ${action}: the document is ${doc.status}, not draft`);
}

export function checkExpiry(
  deps: Pick<AppDeps, 'clock'>,
  expiresAt: string | null | undefined,
): void {
  if (expiresAt && Date.parse(expiresAt) <= deps.clock.now().getTime()) {
    throw validation('body.expiresAt', 'must be in the future');
  }
}

export async function checkFolder(
  db: Executor,
  orgId: string,
  folderId: string | null | undefined,
): Promise<void> {
  if (folderId && !(await repo.folderExists(db, orgId, folderId))) {
    throw validation('body.folderId', 'is not a folder of your organization');
  }
}

export const isoOrNull = (value: string | null | undefined) =>
  value ? new Date(value).toISOString() : null;

/** The list-item view of a document, as sent in event payloads. */
export async function documentEventData(db: Executor, orgId: string, id: string) {
  const row = await repo.findDocumentWithCounts(db, orgId, id);
  if (!row) throw notFound('Document');
  return toDocumentListItem(row);
}

/**
 * The document's detail; a pending direct upload is settled first (pending-upload.ts). Settling
 * asks the storage, not only the database, so `onStorageChecked` is told: that answer may not be
 * kept in the read cache.
 */
export async function getDocument(
  deps: Pick<AppDeps, 'db' | 'dialect' | 'storage' | 'clock' | 'pdf'>,
  orgId: string,
  id: string,
) {
  let detail = await findDocumentDetail(deps.db, deps.dialect, orgId, id);
  if (!detail) throw notFound('Document');
  if (detail.row.pending_upload_key) {
    // Settling a direct upload changes the file columns: read the detail again once it is done.
    await settlePendingUpload(deps, detail.row);
    detail = await findDocumentDetail(deps.db, deps.dialect, orgId, id);
    if (!detail) throw notFound('Document');
  }
  return toDocumentDetail(detail.row, detail.signers, detail.fields, detail.attachments);
}
