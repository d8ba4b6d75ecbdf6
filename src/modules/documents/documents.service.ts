import type { AppDeps } from '../../deps.ts';
import { checkOptionalLocale } from '../../i18n/locale-input.ts';
import type { DocumentRow, Executor } from '../../db/database.ts';
import { invalidState, notFound, validation } from '../../http/errors.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { writeAudit, type RequestMeta } from '../audit/audit.ts';
import { emitEvent } from '../events/emit.ts';
import * as repo from './documents.repository.ts';
import { isOpenDocument } from './document-status.ts';
import { findDocumentDetail } from './document-detail.query.ts';
import { toDocumentDetail, toDocumentListItem, toAuditEntry } from './documents.mappers.ts';
import { settlePendingUpload } from './pending-upload.ts';
import type { ListDocumentsQueryT, UpdateDocumentInput } from './documents.schemas.ts';

/*
 * Reading, editing and deleting documents, and what the other document use cases share (the
 * actor, the draft rule, the event payload). Creating: create-document.service.ts; sending and
 * cancelling: send-document.service.ts; sealing: finalize.service.ts and sealing.service.ts.
 */

/** Who is acting: the organization of the API key and the request's origin, for the audit log. */
export interface Actor {
  orgId: string;
  meta: RequestMeta;
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

export function checkExpiry(deps: AppDeps, expiresAt: string | null | undefined): void {
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

export async function updateDocument(
  deps: AppDeps,
  actor: Actor,
  id: string,
  input: UpdateDocumentInput,
) {
  checkExpiry(deps, input.expiresAt);
  await deps.db.transaction().execute(async (trx) => {
    const doc = await repo.lockDocumentForEdit(trx, actor.orgId, id);
    requireDraft(doc, 'edit the document');
    await checkFolder(trx, actor.orgId, input.folderId);
    const changes: Parameters<typeof repo.updateDocument>[2] = {
      updated_at: deps.clock.now().toISOString(),
    };
    if (input.name !== undefined) {
      changes.name = input.name;
      changes.search_name = input.name.toLowerCase();
    }
    if (input.signingType !== undefined) changes.signing_type = input.signingType;
    if (input.message !== undefined) changes.message = input.message;
    if (input.expiresAt !== undefined) changes.expires_at = isoOrNull(input.expiresAt);
    if (input.folderId !== undefined) changes.folder_id = input.folderId;
    if (input.emailSubject !== undefined) changes.email_subject = input.emailSubject;
    if (input.emailMessage !== undefined) changes.email_message = input.emailMessage;
    if (input.locale !== undefined)
      changes.locale = checkOptionalLocale(input.locale, 'body.locale');
    if (input.otpMethod !== undefined) changes.otp_method = input.otpMethod;
    if (input.reminderFrequency !== undefined) changes.reminder_frequency = input.reminderFrequency;
    if (input.requireKyc !== undefined) changes.require_kyc = input.requireKyc ? 1 : 0;
    await repo.updateDocument(trx, id, changes);
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId: id,
      action: 'document.updated',
      details: `Changed ${Object.keys(input).sort().join(', ')}`,
      meta: actor.meta,
    });
  });
  return getDocument(deps, actor.orgId, id);
}

/**
 * The document's detail; a pending direct upload is settled first (pending-upload.ts). Settling
 * asks the storage, not only the database, so `onStorageChecked` is told: that answer may not be
 * kept in the read cache.
 */
export async function getDocument(deps: AppDeps, orgId: string, id: string) {
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

export async function listDocuments(deps: AppDeps, orgId: string, query: ListDocumentsQueryT) {
  const { rows, meta } = await repo.listDocuments(
    deps.db,
    orgId,
    {
      status: query.status,
      search: query.search,
      folderId: query.folderId,
      bulkSendId: query.bulkSendId,
    },
    { list: 'documents', limit: query.limit, cursor: query.cursor },
  );
  return { data: rows.map(toDocumentListItem), meta };
}

/** Soft delete; refused while the document is out for signature (cancel first). */
export async function deleteDocument(deps: AppDeps, actor: Actor, id: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const doc = await repo.lockDocumentForEdit(trx, actor.orgId, id);
    if (isOpenDocument(doc.status)) {
      throw invalidState(`Cannot delete a ${doc.status} document; cancel it first`);
    }
    const data = await documentEventData(trx, actor.orgId, id);
    const now = deps.clock.now().toISOString();
    await repo.updateDocument(trx, id, { deleted_at: now, updated_at: now });
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId: id,
      action: 'document.deleted',
      details: 'Document deleted',
      meta: actor.meta,
    });
    await emitEvent(trx, deps.clock, actor.orgId, 'document.deleted', { ...data, updatedAt: now });
  });
}

export async function listAuditLog(
  deps: AppDeps,
  orgId: string,
  id: string,
  page: Omit<PageRequest, 'list'>,
) {
  await requireDocument(deps.db, orgId, id);
  const { rows, meta } = await repo.listAudit(deps.db, id, { ...page, list: `audit:${id}` });
  return { data: rows.map(toAuditEntry), meta };
}
