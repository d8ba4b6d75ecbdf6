import type { AppDeps } from '../../deps.ts';
import { orgNameOf } from '../orgs/org-name.ts';
import type { DocumentRow, Executor } from '../../db/database.ts';
import { AppError, invalidState, notFound, validation } from '../../http/errors.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { newId } from '../../ids.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { insertBatched } from '../../db/pg-insert-batch.ts';
import { auditRow, writeAudit, type RequestMeta } from '../audit/audit.ts';
import { DELIVERIES_OF_EVENTS_PG, emitEvent, eventRow } from '../events/emit.ts';
import { buildFieldRows, fieldBeyondPages } from '../fields/fields.rules.ts';
import { insertFields, listFields } from '../fields/fields.repository.ts';
import { buildSignerRows } from '../signers/signers.rules.ts';
import { moveSigner, UNFINISHED_SIGNER_STATUSES } from '../signers/signer-status.ts';
import { insertSigners, listSigners } from '../signers/signers.repository.ts';
import { invitationMail, cancellationMail } from '../../mail/templates.ts';
import { issueLink } from '../signing/signing-links.ts';
import { seedFromTemplate, type DocumentSeed } from '../templates/template-copy.ts';
import * as repo from './documents.repository.ts';
import { isOpenDocument, moveDocument, OPEN_DOCUMENT_STATUSES } from './document-status.ts';
import { findDocumentDetail } from './document-detail.query.ts';
import { toCreatedDocument, toDocumentDetail, toDocumentListItem, toDocumentListItemOf, toAuditEntry } from './documents.mappers.ts';
import { settlePendingUpload } from './pending-upload.ts';
import type { CreateDocumentInput, ListDocumentsQueryT, UpdateDocumentInput } from './documents.schemas.ts';

/** Who is acting: the organization of the API key and the request's origin, for the audit log. */
export interface Actor {
  orgId: string;
  meta: RequestMeta;
}

/** The live document of the actor's organization, or 404. */
export async function requireDocument(db: Executor, orgId: string, id: string): Promise<DocumentRow> {
  const row = await repo.findDocument(db, orgId, id);
  if (!row) throw notFound('Document');
  return row;
}

/** Refuses edits outside `draft`. */
export function requireDraft(doc: DocumentRow, action: string): void {
  if (doc.status !== 'draft') throw invalidState(`Cannot ${action}: the document is ${doc.status}, not draft`);
}

function checkExpiry(deps: AppDeps, expiresAt: string | null | undefined): void {
  if (expiresAt && Date.parse(expiresAt) <= deps.clock.now().getTime()) {
    throw validation('body.expiresAt', 'must be in the future');
  }
}

async function checkFolder(db: Executor, orgId: string, folderId: string | null | undefined): Promise<void> {
  if (folderId && !(await repo.folderExists(db, orgId, folderId))) {
    throw validation('body.folderId', 'is not a folder of your organization');
  }
}

const isoOrNull = (value: string | null | undefined) => (value ? new Date(value).toISOString() : null);

/** The list-item view of a document, as sent in event payloads. */
export async function documentEventData(db: Executor, orgId: string, id: string) {
  const row = await repo.findDocumentWithCounts(db, orgId, id);
  if (!row) throw notFound('Document');
  return toDocumentListItem(row);
}

/** A new draft's rows, as `createDocument` inserts them; bulk sends insert them in their own transaction. */
export function buildNewDocument(deps: AppDeps, actor: Actor, id: string, input: CreateDocumentInput, seed: DocumentSeed | undefined, now: string) {
  const row: DocumentRow = {
    id,
    org_id: actor.orgId,
    name: input.name,
    search_name: input.name.toLowerCase(),
    status: 'draft',
    signing_type: input.signingType ?? seed?.signingType ?? 'sequential',
    message: input.message ?? '',
    email_subject: input.emailSubject ?? null,
    email_message: input.emailMessage ?? null,
    reminder_frequency: input.reminderFrequency ?? null,
    otp_method: input.otpMethod ?? null,
    require_kyc: input.requireKyc ? 1 : 0,
    expires_at: isoOrNull(input.expiresAt),
    completed_at: null,
    sent_at: null,
    template_id: input.templateId ?? null,
    campaign_id: null,
    bulk_send_id: null,
    folder_id: input.folderId ?? null,
    file_key: null,
    original_file_key: null,
    original_content_type: null,
    file_size: 0,
    page_count: null,
    document_hash: '',
    signed_file_key: null,
    signed_file_hash: '',
    created_at: now,
    updated_at: now,
    deleted_at: null,
    // repo.NO_PENDING_UPLOAD, written out: spreading into a literal this size made V8 build a
    // slow (dictionary) object, 10 µs per spread, slower to serialize and bind after that.
    pending_upload_key: null,
    pending_upload_content_type: null,
    pending_upload_max_bytes: null,
    pending_upload_expires_at: null,
    sealing_error: null,
    pades_level: null,
    timestamp_expires_at: null,
    timestamp_renewal_claimed_until: null,
  };
  if (seed) Object.assign(row, seed.file);
  const signers = seed ? seed.placeSigners(input.signers ?? []) : (input.signers ?? []);
  const signerRows = [...(seed?.signers ?? []), ...buildSignerRows(id, signers, seed?.signers ?? [], now, 'body.signers')];
  const fieldRows = [...(seed?.fields ?? []), ...buildFieldRows(id, input.fields ?? [], now, 'body.fields')];
  const audit = { orgId: actor.orgId, documentId: id, action: 'document.created', details: `Document "${input.name}" created`, meta: actor.meta } as const;
  return { row, signerRows, fieldRows, audit };
}

/** Inserts what buildNewDocument built, with its audit entry and `document.created`, inside `trx`. */
export async function insertNewDocument(trx: Executor, deps: AppDeps, built: ReturnType<typeof buildNewDocument>): Promise<void> {
  const { row, signerRows, fieldRows, audit } = built;
  await repo.insertDocument(trx, row);
  await insertSigners(trx, signerRows);
  await insertFields(trx, fieldRows);
  await writeAudit(trx, deps.clock, audit);
  const data = toDocumentListItemOf(row, { signer_count: signerRows.length, field_count: fieldRows.length, attachment_count: 0 });
  await emitEvent(trx, deps.clock, row.org_id, 'document.created', data);
}

export async function createDocument(deps: AppDeps, actor: Actor, input: CreateDocumentInput) {
  checkExpiry(deps, input.expiresAt);
  const now = deps.clock.now().toISOString();
  const id = newId('doc');
  // From a template: a copy of its file, its fields and its fixed signers (src/modules/templates/template-copy.ts).
  const seed = input.templateId ? await seedFromTemplate(deps, actor.orgId, id, input.templateId, now) : undefined;
  try {
    const built = buildNewDocument(deps, actor, id, input, seed, now);
    const { row, signerRows, fieldRows, audit } = built;
    if (deps.dialect === 'postgres' && !input.folderId && !seed && !deps.config.perfOff.has('batched-creates')) {
      // The list item of what was just inserted (no read back: nothing else can have changed it yet).
      const data = toDocumentListItemOf(row, { signer_count: signerRows.length, field_count: fieldRows.length, attachment_count: 0 });
      // One statement for this create and the others of this turn (db/pg-insert-batch.ts). A
      // folder to check or a template's files to discard on failure take the transaction below.
      await insertBatched(deps.db, {
        documents: [row],
        signers: signerRows,
        fields: fieldRows,
        audit_logs: [auditRow(deps.clock, audit)],
        events: [eventRow(deps.clock, actor.orgId, 'document.created', data)],
      }, DELIVERIES_OF_EVENTS_PG);
      return toCreatedDocument(row);
    }
    await deps.db.transaction().execute(async (trx) => {
      await checkFolder(trx, actor.orgId, input.folderId);
      await insertNewDocument(trx, deps, built);
    });
    return toCreatedDocument(row);
  } catch (err) {
    await seed?.discard();
    throw err;
  }
}

export async function updateDocument(deps: AppDeps, actor: Actor, id: string, input: UpdateDocumentInput) {
  checkExpiry(deps, input.expiresAt);
  await deps.db.transaction().execute(async (trx) => {
    const doc = await repo.lockDocumentForEdit(trx, actor.orgId, id);
    requireDraft(doc, 'edit the document');
    await checkFolder(trx, actor.orgId, input.folderId);
    const changes: Parameters<typeof repo.updateDocument>[2] = { updated_at: deps.clock.now().toISOString() };
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
    { status: query.status, search: query.search, folderId: query.folderId, bulkSendId: query.bulkSendId },
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
    await writeAudit(trx, deps.clock, { orgId: actor.orgId, documentId: id, action: 'document.deleted', details: 'Document deleted', meta: actor.meta });
    await emitEvent(trx, deps.clock, actor.orgId, 'document.deleted', { ...data, updatedAt: now });
  });
}

/**
 * Sends a draft for signature: every recipient is emailed, the signer(s) whose turn it is become
 * `sent` (all signers in parallel mode, the lowest order in sequential mode). A pending direct
 * upload is settled first; one still pending then is dropped, since only drafts take files.
 */
export async function sendDocument(deps: AppDeps, actor: Actor, id: string) {
  await settlePendingUpload(deps, await requireDocument(deps.db, actor.orgId, id));
  return deps.db.transaction().execute((trx) => sendDraft(trx, deps, actor, id));
}

/**
 * The send of `sendDocument` inside the caller's transaction (bulk sends create and send each
 * row's document in one). Refusals are the send preconditions of API.md §2.
 */
export async function sendDraft(trx: Executor, deps: AppDeps, actor: Actor, id: string) {
  const doc = await repo.lockDocumentForEdit(trx, actor.orgId, id);
  requireDraft(doc, 'send');
  const signers = await listSigners(trx, id);
  const fields = await listFields(trx, id);
  if (signers.length === 0) throw new AppError('missing_signers', 'Add at least one signer before sending');
  if (fields.length === 0) throw new AppError('missing_fields', 'Add at least one field before sending');
  if (!doc.file_key) throw new AppError('missing_file', 'Upload the document file before sending');
  const signing = signers.filter((s) => s.role !== 'cc');
  if (signing.length === 0) throw new AppError('missing_signers', 'Add at least one signer or approver (cc recipients do not sign)');
  const orders = new Set(signing.map((s) => s.position));
  const orphan = fields.find((f) => !orders.has(f.assigned_to));
  if (orphan) {
    throw invalidState(`Field ${orphan.id} is assigned to order ${orphan.assigned_to}, which no signer or approver has`);
  }
  const offPage = fieldBeyondPages(fields, doc.page_count);
  if (offPage) {
    throw invalidState(`Field ${offPage.id} is on page ${offPage.page}, but the file has ${doc.page_count} page(s); move or delete the field`);
  }
  if (doc.expires_at && Date.parse(doc.expires_at) <= deps.clock.now().getTime()) {
    throw invalidState('The document expiresAt has passed; set a later one before sending');
  }
  const now = deps.clock.now().toISOString();
  const firstTurn = Math.min(...signing.map((s) => s.position));
  const moved = await moveDocument(trx, id, ['draft'], 'pending', { sent_at: now, updated_at: now, ...repo.NO_PENDING_UPLOAD });
  if (!moved) throw invalidState('The document is no longer a draft');
  const org = await orgNameOf(trx, actor.orgId);
  for (const signer of signers) {
    const mayAct = signer.role !== 'cc' && (doc.signing_type === 'parallel' || signer.position === firstTurn);
    if (mayAct) {
      await moveSigner(trx, signer.id, ['pending'], 'sent', { last_notified_at: now, updated_at: now });
    }
    // Signers and approvers get their secret link; a final delivery failure makes the document action_required.
    const link = signer.role === 'cc' ? undefined : (await issueLink(trx, deps, doc, signer)).url;
    await enqueueJob(trx, deps.clock, 'mail', {
      ...invitationMail({ doc, signer, orgName: org, yourTurn: mayAct, link }),
      ...(link ? { signingInvitation: { documentId: id, signerId: signer.id } } : {}),
    });
  }
  await writeAudit(trx, deps.clock, {
    orgId: actor.orgId,
    documentId: id,
    action: 'document.sent',
    details: `Sent to ${signers.map((s) => s.email).join(', ')}`,
    meta: actor.meta,
  });
  await emitEvent(trx, deps.clock, actor.orgId, 'document.sent', await documentEventData(trx, actor.orgId, id));
  return { id, status: 'pending', signerCount: signers.length, sentAt: now };
}

/** Cancels a document out for signature; every recipient who had not completed is notified. */
export async function cancelDocument(deps: AppDeps, actor: Actor, id: string) {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await repo.lockDocumentForEdit(trx, actor.orgId, id);
    if (!isOpenDocument(doc.status)) throw invalidState(`Cannot cancel a ${doc.status} document`);
    const now = deps.clock.now().toISOString();
    const moved = await moveDocument(trx, id, OPEN_DOCUMENT_STATUSES, 'cancelled', { updated_at: now });
    if (!moved) throw invalidState('The document changed status meanwhile');
    const signers = await listSigners(trx, id);
    const open = signers.filter((s) => s.status !== 'completed');
    const org = await orgNameOf(trx, actor.orgId);
    for (const signer of open) {
      await moveSigner(trx, signer.id, UNFINISHED_SIGNER_STATUSES, 'cancelled', { updated_at: now });
      await enqueueJob(trx, deps.clock, 'mail', cancellationMail({ doc, signer, orgName: org }));
    }
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId: id,
      action: 'document.cancelled',
      details: `Cancelled; ${open.length} recipient(s) notified`,
      meta: actor.meta,
    });
    await emitEvent(trx, deps.clock, actor.orgId, 'document.cancelled', await documentEventData(trx, actor.orgId, id));
    return { id, status: 'cancelled', cancelledSigners: open.length };
  });
}

export async function listAuditLog(deps: AppDeps, orgId: string, id: string, page: Omit<PageRequest, 'list'>) {
  await requireDocument(deps.db, orgId, id);
  const { rows, meta } = await repo.listAudit(deps.db, id, { ...page, list: `audit:${id}` });
  return { data: rows.map(toAuditEntry), meta };
}
