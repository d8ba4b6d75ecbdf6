import type { AppDeps } from '../../deps.ts';
import type { Executor, TemplateRow } from '../../db/database.ts';
import { invalidState, notFound } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import * as repo from './templates.repository.ts';
import { toTemplateDetail, toTemplateListItem } from './templates.mappers.ts';
import { buildRoleRows, buildTemplateFieldRows } from './templates.rules.ts';
import type {
  CreateTemplateInput,
  ListTemplatesQueryT,
  UpdateTemplateInput,
} from './templates.schemas.ts';

/** The template of the organization, or 404 (another organization's template is 404 too). */
export async function requireTemplate(
  db: Executor,
  orgId: string,
  id: string,
): Promise<TemplateRow> {
  const row = await repo.findTemplate(db, orgId, id);
  if (!row) throw notFound('Template');
  return row;
}

/** Creates a template, optionally with its roles and fields; the file comes through the upload endpoint. */
export async function createTemplate(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  input: CreateTemplateInput,
) {
  const now = deps.clock.now().toISOString();
  const id = newId('tpl');
  const roleRows = buildRoleRows(id, input.roles ?? [], [], now, 'body.roles');
  const fieldRows = buildTemplateFieldRows(id, input.fields ?? [], now, 'body.fields');
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertTemplate(trx, {
      id,
      org_id: orgId,
      name: input.name,
      search_name: input.name.toLowerCase(),
      description: input.description ?? '',
      signing_type: input.signingType ?? 'sequential',
      allow_reassign: input.allowReassign ? 1 : 0,
      file_key: null,
      original_file_key: null,
      original_content_type: null,
      file_size: 0,
      page_count: null,
      document_hash: '',
      created_at: now,
      updated_at: now,
    });
    await repo.insertRoles(trx, roleRows);
    await repo.insertTemplateFields(trx, fieldRows);
  });
  return getTemplate(deps, orgId, id);
}

export async function getTemplate(deps: Pick<AppDeps, 'db'>, orgId: string, id: string) {
  const template = await requireTemplate(deps.db, orgId, id);
  const [roles, fields] = await Promise.all([
    repo.listRoles(deps.db, id),
    repo.listTemplateFields(deps.db, id),
  ]);
  // The detail carries the children themselves, so their counts need no extra query.
  return toTemplateDetail(
    { ...template, role_count: roles.length, field_count: fields.length },
    roles,
    fields,
  );
}

export async function listTemplates(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  query: ListTemplatesQueryT,
) {
  const { rows, meta } = await repo.listTemplates(
    deps.db,
    orgId,
    { search: query.search },
    { list: 'templates', limit: query.limit, cursor: query.cursor },
  );
  return { data: rows.map(toTemplateListItem), meta };
}

export async function updateTemplate(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  id: string,
  input: UpdateTemplateInput,
) {
  await deps.db.transaction().execute(async (trx) => {
    await repo.lockTemplate(trx, orgId, id);
    const changes: Parameters<typeof repo.updateTemplate>[2] = {
      updated_at: deps.clock.now().toISOString(),
    };
    if (input.name !== undefined) {
      changes.name = input.name;
      changes.search_name = input.name.toLowerCase();
    }
    if (input.description !== undefined) changes.description = input.description;
    if (input.signingType !== undefined) changes.signing_type = input.signingType;
    if (input.allowReassign !== undefined) changes.allow_reassign = input.allowReassign ? 1 : 0;
    await repo.updateTemplate(trx, id, changes);
  });
  return getTemplate(deps, orgId, id);
}

/**
 * Deletes a template for good, with its roles, fields and file. Documents made from it keep their
 * own copies (and its id in `templateId`). Refused while a campaign is built on it: the campaign's
 * public link would break; delete the campaign first.
 */
export async function deleteTemplate(
  deps: Pick<AppDeps, 'db' | 'storage'>,
  orgId: string,
  id: string,
): Promise<void> {
  const files = await deps.db.transaction().execute(async (trx) => {
    const template = await repo.lockTemplate(trx, orgId, id);
    const campaigns = await repo.countCampaignsUsing(trx, id);
    if (campaigns > 0) {
      throw invalidState(`The template is used by ${campaigns} campaign(s); delete them first`);
    }
    await repo.deleteTemplate(trx, id);
    return [
      ...new Set(
        [template.file_key, template.original_file_key].filter((k): k is string => k !== null),
      ),
    ];
  });
  // After the commit: a failed storage delete leaves an unreferenced file, never a template without its file.
  await Promise.all(files.map((key) => deps.storage.delete(key).catch(() => undefined)));
}
