import type { AppDeps } from '../../deps.ts';
import { checkOptionalLocale } from '../../http/locale-input.ts';
import type { Executor } from '../../db/database.ts';
import type { BatchRows } from '../../db/pg-insert-batch.ts';
import { newId } from '../../ids.ts';
import { auditRow, writeAudit } from '../audit/audit.ts';
import { emitEvent, eventRow } from '../events/emit.ts';
import { buildFieldRows, MAX_FIELDS } from '../documents-core/fields.rules.ts';
import { insertFields } from '../documents-core/fields.repository.ts';
import { buildSignerRows } from '../documents-core/signers.rules.ts';
import { insertSigners } from '../documents-core/signers.repository.ts';
import { seedFromTemplate, type DocumentSeed } from '../templates/template-copy.ts';
import * as repo from '../documents-core/documents.repository.ts';
import { newDocumentRow } from '../documents-core/new-document-row.ts';
import { checkDocumentRedirectUrl } from '../documents-core/redirect-url.ts';
import {
  checkExpiry,
  checkFolder,
  isoOrNull,
  type Actor,
} from '../documents-core/document-access.ts';
import { toCreatedDocument, toDocumentListItemOf } from '../documents-core/documents.mappers.ts';
import type {
  CreateDocumentBodyT,
  CreateDocumentInput,
} from '../documents-core/documents.schemas.ts';
import { placeInlineFields } from '../documents-core/anchors.ts';
import { AppError } from '../../http/errors.ts';
import { insertDocumentBatched, insertDocumentsBatchedIn } from './batched-document-insert.ts';

/** A new draft's rows, as `createDocument` inserts them; bulk sends insert them in their own transaction. */
export function buildNewDocument(
  deps: Pick<AppDeps, 'config' | 'secret'>,
  actor: Actor,
  id: string,
  input: CreateDocumentInput,
  seed: DocumentSeed | undefined,
  now: string,
) {
  const row = newDocumentRow({
    id,
    orgId: actor.orgId,
    name: input.name,
    status: 'draft',
    signingType: input.signingType ?? seed?.signingType ?? 'sequential',
    requireKyc: Boolean(input.requireKyc),
    allowReassign: input.allowReassign ?? seed?.allowReassign ?? false,
    now,
    message: input.message,
    emailSubject: input.emailSubject,
    emailMessage: input.emailMessage,
    locale: checkOptionalLocale(input.locale, 'body.locale'),
    reminderFrequency: input.reminderFrequency,
    otpMethod: input.otpMethod,
    expiresAt: isoOrNull(input.expiresAt),
    templateId: input.templateId,
    folderId: input.folderId,
    sendCompletedCopy: input.sendCompletedCopy,
    redirectUrl: checkDocumentRedirectUrl(input.redirectUrl, deps.config.production),
  });
  if (seed) Object.assign(row, seed.file);
  const signers = seed ? seed.placeSigners(input.signers ?? []) : (input.signers ?? []);
  const signerRows = [
    ...(seed?.signers ?? []),
    ...buildSignerRows(
      id,
      signers,
      seed?.signers ?? [],
      now,
      'body.signers',
      deps.secret,
      row.otp_method,
    ),
  ];
  const fieldRows = [
    ...(seed?.fields ?? []),
    ...buildFieldRows(id, input.fields ?? [], now, 'body.fields'),
  ];
  const audit = {
    orgId: actor.orgId,
    documentId: id,
    action: 'document.created',
    details: `Document "${input.name}" created`,
    meta: actor.meta,
  } as const;
  return { row, signerRows, fieldRows, audit };
}

export type NewDocument = ReturnType<typeof buildNewDocument>;

/** The `document.created` payload of what was just built (no read back: nothing else can have changed it yet). */
function createdEventData({ row, signerRows, fieldRows }: NewDocument) {
  return toDocumentListItemOf(row, {
    signer_count: signerRows.length,
    field_count: fieldRows.length,
    attachment_count: 0,
  });
}

/** What buildNewDocument built as the rows of one batched insert (PostgreSQL), its audit entry and event included. */
function batchRowsOf(deps: Pick<AppDeps, 'clock'>, built: NewDocument): BatchRows {
  return {
    documents: [built.row],
    signers: built.signerRows,
    fields: built.fieldRows,
    audit_logs: [auditRow(deps.clock, built.audit)],
    events: [eventRow(deps.clock, built.row.org_id, 'document.created', createdEventData(built))],
  };
}

/** Inserts what buildNewDocument built, with its audit entry and `document.created`, inside `trx`. */
async function insertNewDocument(
  trx: Executor,
  deps: Pick<AppDeps, 'clock'>,
  built: NewDocument,
): Promise<void> {
  const { row, signerRows, fieldRows, audit } = built;
  await repo.insertDocument(trx, row);
  await insertSigners(trx, signerRows);
  await insertFields(trx, fieldRows);
  await writeAudit(trx, deps.clock, audit);
  await emitEvent(trx, deps.clock, row.org_id, 'document.created', createdEventData(built));
}

/**
 * insertNewDocument for several documents inside `trx`: on PostgreSQL all their rows go as one
 * statement (a bulk send's group of rows), on SQLite one document after the other.
 */
export async function insertNewDocuments(
  trx: Executor,
  deps: Pick<AppDeps, 'config' | 'db' | 'dialect' | 'clock'>,
  builts: NewDocument[],
): Promise<void> {
  if (
    deps.config.perfOff.has('batched-creates') ||
    !(await insertDocumentsBatchedIn(
      deps.db,
      trx,
      deps.dialect,
      builts.map((b) => batchRowsOf(deps, b)),
    ))
  ) {
    for (const built of builts) await insertNewDocument(trx, deps, built);
  }
}

/**
 * Creates a draft, from a template (a copy of its file, fields and fixed signers) or not, with its
 * inline signers and fields; anchored inline fields are placed on the file copied from the template
 * (src/modules/documents-core/anchors.ts).
 */
export async function createDocument(
  deps: Pick<AppDeps, 'config' | 'db' | 'dialect' | 'storage' | 'clock' | 'secret' | 'pdf'>,
  actor: Actor,
  body: CreateDocumentBodyT,
) {
  checkExpiry(deps, body.expiresAt);
  const now = deps.clock.now().toISOString();
  const id = newId('doc');
  // From a template: a copy of its file, its fields and its fixed signers (src/modules/templates/template-copy.ts).
  const seed = body.templateId
    ? await seedFromTemplate(deps, actor.orgId, id, body.templateId, now)
    : undefined;
  try {
    const fields = await placeInlineFields(deps, seed?.file.file_key, body.fields, 'body.fields');
    if ((seed?.fields.length ?? 0) + (fields?.length ?? 0) > MAX_FIELDS)
      throw new AppError('limit_reached', `A document has at most ${MAX_FIELDS} fields`);
    const input = { ...body, fields };
    const built = buildNewDocument(deps, actor, id, input, seed, now);
    const { row } = built;
    // A folder to check or a template's files to discard on failure take the transaction below.
    if (!input.folderId && !seed && !deps.config.perfOff.has('batched-creates')) {
      if (await insertDocumentBatched(deps.db, deps.dialect, batchRowsOf(deps, built)))
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
