import type { AppDeps } from '../../deps.ts';
import type { FieldRow } from '../../db/database.ts';
import { writeAudit } from '../audit/audit.ts';
import { toField } from '../documents-core/documents.mappers.ts';
import { updateDocument } from '../documents-core/documents.repository.ts';
import { requireDraft, type Actor } from '../documents-core/document-access.ts';
import { lockDocumentForEdit } from '../documents-core/document-lock.ts';
import * as repo from '../documents-core/fields.repository.ts';
import { buildFieldRows } from '../documents-core/fields.rules.ts';
import { planFieldReplacement, type ReplacingFieldT } from '../documents-core/field-replacement.ts';

const where = (f: Pick<FieldRow, 'type' | 'page' | 'assigned_to'>) =>
  `${f.type} field on page ${f.page} for order ${f.assigned_to}`;

/**
 * Makes a draft document's fields exactly `inputs` (the builder's save): fields named by `id` are
 * edited, the others removed, new ones added, in one transaction, each checked by the rules of
 * the fields API and written to the audit log as `field.added`, `field.updated` or
 * `field.removed` (`via` says through what). Answers the fields, oldest first.
 */
export async function replaceDocumentFields(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  actor: Actor,
  documentId: string,
  inputs: readonly ReplacingFieldT[],
  via: string,
) {
  return deps.db.transaction().execute(async (trx) => {
    const doc = await lockDocumentForEdit(trx, actor.orgId, documentId);
    requireDraft(doc, 'edit its fields');
    const now = deps.clock.now().toISOString();
    const plan = planFieldReplacement(
      await repo.listFields(trx, documentId),
      inputs,
      doc.page_count,
      (list) => buildFieldRows(documentId, list, now, 'body.fields'),
      'A document',
    );
    const audit = (action: 'field.added' | 'field.updated' | 'field.removed', details: string) =>
      writeAudit(trx, deps.clock, {
        orgId: actor.orgId,
        documentId,
        action,
        details: `${details} (${via})`,
        meta: actor.meta,
      });
    for (const field of plan.remove) {
      await repo.deleteField(trx, field.id);
      await audit('field.removed', `Removed ${where(field)}`);
    }
    for (const { before, changes, changed } of plan.update) {
      await repo.updateField(trx, before.id, { ...changes, updated_at: now });
      const after = { ...before, ...changes };
      await audit('field.updated', `Updated ${where(after)}: changed ${changed.join(', ')}`);
    }
    if (plan.insert.length > 0) await repo.insertFields(trx, plan.insert);
    for (const row of plan.insert) await audit('field.added', `Added ${where(row as FieldRow)}`);
    if (plan.remove.length + plan.update.length + plan.insert.length > 0)
      await updateDocument(trx, documentId, { updated_at: now });
    return (await repo.listFields(trx, documentId)).map(toField);
  });
}
