import type { AppDeps } from '../../deps.ts';
import { planFieldReplacement, type ReplacingFieldT } from '../documents-core/field-replacement.ts';
import * as repo from './templates.repository.ts';
import { toTemplateField } from './templates.mappers.ts';
import { buildTemplateFieldRows } from './templates.rules.ts';

/**
 * Makes a template's fields exactly `inputs` (the builder's save): fields named by `id` are
 * edited, the others removed, new ones added, in one transaction, each checked by the rules of
 * the template fields API. Answers the fields, oldest first.
 */
export async function replaceTemplateFields(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  templateId: string,
  inputs: readonly ReplacingFieldT[],
) {
  return deps.db.transaction().execute(async (trx) => {
    const template = await repo.lockTemplate(trx, orgId, templateId);
    const now = deps.clock.now().toISOString();
    const plan = planFieldReplacement(
      await repo.listTemplateFields(trx, templateId),
      inputs,
      template.page_count,
      (list) => buildTemplateFieldRows(templateId, list, now, 'body.fields'),
      'A template',
    );
    for (const field of plan.remove) await repo.deleteTemplateField(trx, field.id);
    for (const { before, changes } of plan.update)
      await repo.updateTemplateField(trx, before.id, { ...changes, updated_at: now });
    if (plan.insert.length > 0) await repo.insertTemplateFields(trx, plan.insert);
    await repo.updateTemplate(trx, templateId, { updated_at: now });
    return (await repo.listTemplateFields(trx, templateId)).map(toTemplateField);
  });
}
