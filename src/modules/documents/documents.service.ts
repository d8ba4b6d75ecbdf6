import type { AppDeps } from '../../deps.ts';
import { checkOptionalLocale } from '../../http/locale-input.ts';
import { checkDocumentRedirectUrl } from '../documents-core/redirect-url.ts';
import { invalidState } from '../../http/errors.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { writeAudit } from '../audit/audit.ts';
import { emitEvent } from '../events/emit.ts';
import * as repo from '../documents-core/documents.repository.ts';
import { canDelete } from '../documents-core/document-status.ts';
import { toDocumentListItem, toAuditEntry } from '../documents-core/documents.mappers.ts';
import {
  type Actor,
  checkExpiry,
  checkFolder,
  documentEventData,
  getDocument,
  isoOrNull,
  requireDocument,
  requireDraft,
} from '../documents-core/document-access.ts';
import type {
  ListDocumentsQueryT,
  UpdateDocumentInput,
} from '../documents-core/documents.schemas.ts';
import { lockDocumentForEdit } from '../documents-core/document-lock.ts';

/*
 * Editing, listing and deleting documents. What the document use cases share (the actor, the
 * draft rule, the detail, the event payload): documents-core/document-access.ts. Creating:
 * create-document.service.ts; sending: send-document.service.ts; cancelling:
 * cancel-document.service.ts; sealing: finalize.service.ts and sealing.service.ts.
 */

export async function updateDocument(
  deps: Pick<AppDeps, 'config' | 'db' | 'dialect' | 'storage' | 'clock' | 'pdf'>,
  actor: Actor,
  id: string,
  input: UpdateDocumentInput,
) {
  checkExpiry(deps, input.expiresAt);
  await deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, id);
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
    if (input.allowReassign !== undefined) changes.allow_reassign = input.allowReassign ? 1 : 0;
    if (input.sendCompletedCopy !== undefined)
      changes.send_completed_copy = input.sendCompletedCopy ? 1 : 0;
    if (input.redirectUrl !== undefined)
      changes.redirect_url = checkDocumentRedirectUrl(input.redirectUrl, deps.config.production);
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

export async function listDocuments(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  query: ListDocumentsQueryT,
) {
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
export async function deleteDocument(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  id: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, id);
    if (!canDelete(doc)) {
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
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  id: string,
  page: Omit<PageRequest, 'list'>,
) {
  await requireDocument(deps.db, orgId, id);
  const { rows, meta } = await repo.listAudit(deps.db, id, { ...page, list: `audit:${id}` });
  return { data: rows.map(toAuditEntry), meta };
}
