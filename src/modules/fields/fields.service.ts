import type { Updateable } from 'kysely';
import type { AppDeps } from '../../deps.ts';
import type { Executor, FieldRow, FieldsTable } from '../../db/database.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { writeAudit } from '../audit/audit.ts';
import { toField } from '../documents-core/documents.mappers.ts';
import { updateDocument } from '../documents-core/documents.repository.ts';
import { requireDocument, requireDraft, type Actor } from '../documents-core/document-access.ts';
import { lockDocumentForEdit } from '../documents-core/document-lock.ts';
import { type AnchoredFieldInputT, placeAnchoredFields } from '../documents-core/anchors.ts';
import * as repo from '../documents-core/fields.repository.ts';
import {
  buildFieldRows,
  checkField,
  checkPage,
  MAX_FIELDS,
  type FieldShape,
} from '../documents-core/fields.rules.ts';
import type {
  FieldInputT,
  FieldPatchT,
  ListFieldsQueryT,
} from '../documents-core/fields.schemas.ts';

/**
 * Places the fields an anchored body makes (every occurrence of its text, or the one it names)
 * on a draft document whose file is uploaded; answers them, oldest first ([] when the text does
 * not occur and `ignoreIfMissing` is set).
 */
export async function addAnchoredFields(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  actor: Actor,
  documentId: string,
  input: AnchoredFieldInputT,
) {
  const found = await requireDocument(deps.db, actor.orgId, documentId);
  requireDraft(found, 'add a field');
  const [placed] = await placeAnchoredFields(deps, found.file_key, [input], () => 'body');
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, documentId);
    requireDraft(doc, 'add a field');
    if (doc.file_key !== found.file_key)
      throw new AppError('invalid_state', 'The file changed while its anchors were placed: retry');
    if ((await repo.countFields(trx, documentId)) + placed.length > MAX_FIELDS) {
      throw new AppError('limit_reached', `A document has at most ${MAX_FIELDS} fields`);
    }
    const now = deps.clock.now().toISOString();
    const rows = buildFieldRows(documentId, placed, now);
    await repo.insertFields(trx, rows);
    if (rows.length > 0) await updateDocument(trx, documentId, { updated_at: now });
    for (const row of rows) {
      await writeAudit(trx, deps.clock, {
        orgId: actor.orgId,
        documentId,
        action: 'field.added',
        details: `Added ${where(row as FieldRow)} at anchor "${input.anchor.text}"`,
        meta: actor.meta,
      });
    }
    return rows.map((row) => toField(row as FieldRow));
  });
}

const where = (f: Pick<FieldRow, 'type' | 'page' | 'assigned_to'>) =>
  `${f.type} field on page ${f.page} for order ${f.assigned_to}`;

/** A document's fields, oldest first, one page at a time. */
export async function listDocumentFields(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  documentId: string,
  query: ListFieldsQueryT,
) {
  await requireDocument(deps.db, orgId, documentId);
  const { rows, meta } = await repo.listFieldsPage(deps.db, documentId, {
    list: `fields:${documentId}`,
    limit: query.limit,
    cursor: query.cursor,
  });
  return { data: rows.map(toField), meta };
}

/** Places a field on a draft document (at most 500; `page` within the page count once known). */
export async function addField(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  documentId: string,
  input: FieldInputT,
) {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, documentId);
    requireDraft(doc, 'add a field');
    if ((await repo.countFields(trx, documentId)) >= MAX_FIELDS) {
      throw new AppError('limit_reached', `A document has at most ${MAX_FIELDS} fields`);
    }
    const now = deps.clock.now().toISOString();
    const [row] = buildFieldRows(documentId, [input], now);
    checkPage(input.page, doc.page_count);
    await repo.insertFields(trx, [row]);
    await updateDocument(trx, documentId, { updated_at: now });
    const field = row as FieldRow;
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId,
      action: 'field.added',
      details: `Added ${where(field)}`,
      meta: actor.meta,
    });
    return toField(field);
  });
}

async function requireField(trx: Executor, documentId: string, fieldId: string): Promise<FieldRow> {
  const field = await repo.findField(trx, documentId, fieldId);
  if (!field) throw notFound('Field');
  return field;
}

const pick = <T>(given: T | undefined, current: T): T => (given === undefined ? current : given);

/** Edits a field of a draft; the rules apply to the field as it would be after the change. */
export async function updateField(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  documentId: string,
  fieldId: string,
  input: FieldPatchT,
) {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, documentId);
    const field = await requireField(trx, documentId, fieldId);
    requireDraft(doc, 'edit a field');
    const merged: FieldShape = {
      type: pick(input.type, field.type),
      page: pick(input.page, field.page),
      x: pick(input.x, field.x),
      y: pick(input.y, field.y),
      width: pick(input.width, field.width),
      height: pick(input.height, field.height),
      options: pick(
        input.options,
        field.options === null ? null : (JSON.parse(field.options) as string[]),
      ),
      defaultValue: pick(input.defaultValue, field.default_value),
    };
    checkField(merged);
    checkPage(merged.page, doc.page_count);
    const now = deps.clock.now().toISOString();
    const changes: Updateable<FieldsTable> = {
      type: merged.type,
      page: merged.page,
      x: merged.x,
      y: merged.y,
      width: merged.width,
      height: merged.height,
      options: merged.options === null ? null : JSON.stringify(merged.options),
      default_value: merged.defaultValue,
      label: pick(input.label, field.label),
      required: input.required === undefined ? field.required : input.required ? 1 : 0,
      read_only: input.readOnly === undefined ? field.read_only : input.readOnly ? 1 : 0,
      assigned_to: pick(input.assignedTo, field.assigned_to),
      placeholder: pick(input.placeholder, field.placeholder),
      updated_at: now,
    };
    await repo.updateField(trx, fieldId, changes);
    await updateDocument(trx, documentId, { updated_at: now });
    const updated = { ...field, ...changes } as FieldRow;
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId,
      action: 'field.updated',
      details: `Updated ${where(updated)}: changed ${Object.keys(input).sort().join(', ')}`,
      meta: actor.meta,
    });
    return toField(updated);
  });
}

export async function removeField(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  documentId: string,
  fieldId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, documentId);
    const field = await requireField(trx, documentId, fieldId);
    requireDraft(doc, 'remove a field');
    await repo.deleteField(trx, fieldId);
    await updateDocument(trx, documentId, { updated_at: deps.clock.now().toISOString() });
    await writeAudit(trx, deps.clock, {
      orgId: actor.orgId,
      documentId,
      action: 'field.removed',
      details: `Removed ${where(field)}`,
      meta: actor.meta,
    });
  });
}
