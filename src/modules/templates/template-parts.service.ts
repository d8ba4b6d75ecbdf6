import type { Updateable } from 'kysely';
import type { AppDeps } from '../../deps.ts';
import type {
  TemplateFieldRow,
  TemplateFieldsTable,
  TemplateRoleRow,
  TemplateRolesTable,
} from '../../db/database.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { checkOptionalLocale } from '../../http/locale-input.ts';
import {
  checkField,
  checkPage,
  MAX_FIELDS,
  type FieldShape,
} from '../documents-core/fields.rules.ts';
import type { FieldInputT, FieldPatchT } from '../documents-core/fields.schemas.ts';
import { type AnchoredFieldInputT, placeAnchoredFields } from '../documents-core/anchors.ts';
import * as repo from './templates.repository.ts';
import { toRole, toTemplateField } from './templates.mappers.ts';
import {
  buildRoleRows,
  buildTemplateFieldRows,
  checkFixedSigner,
  MAX_ROLES,
} from './templates.rules.ts';
import { requireTemplate } from './templates.service.ts';
import type { ListPartsQueryT, RoleInputT, RolePatchT } from './templates.schemas.ts';

/*
 * A template's roles and fields. Unlike a document's, they stay editable for the template's whole
 * life: documents and campaign submissions copy them when they are made, so an edit only affects
 * what is made afterwards.
 */

const pick = <T>(given: T | undefined, current: T): T => (given === undefined ? current : given);

export async function listRoles(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  templateId: string,
  query: ListPartsQueryT,
) {
  await requireTemplate(deps.db, orgId, templateId);
  const { rows, meta } = await repo.listRolesPage(deps.db, templateId, {
    list: `roles:${templateId}`,
    limit: query.limit,
    cursor: query.cursor,
  });
  return { data: rows.map(toRole), meta };
}

/** Adds a role; `order` defaults to after the last one and must be free. */
export async function addRole(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  templateId: string,
  input: RoleInputT,
) {
  return deps.db.transaction().execute(async (trx) => {
    await repo.lockTemplate(trx, orgId, templateId);
    const existing = await repo.listRoles(trx, templateId);
    if (existing.length >= MAX_ROLES)
      throw new AppError('limit_reached', `A template has at most ${MAX_ROLES} roles`);
    const now = deps.clock.now().toISOString();
    const [row] = buildRoleRows(templateId, [input], existing, now);
    await repo.insertRoles(trx, [row]);
    await repo.updateTemplate(trx, templateId, { updated_at: now });
    return toRole(row as TemplateRoleRow);
  });
}

async function requireRole(
  db: Parameters<typeof repo.findRole>[0],
  templateId: string,
  roleId: string,
): Promise<TemplateRoleRow> {
  const role = await repo.findRole(db, templateId, roleId);
  if (!role) throw notFound('Role');
  return role;
}

/** Edits a role; a new `order` must be free, and the fields assigned to the role follow it. */
export async function updateRole(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  templateId: string,
  roleId: string,
  input: RolePatchT,
) {
  return deps.db.transaction().execute(async (trx) => {
    await repo.lockTemplate(trx, orgId, templateId);
    const role = await requireRole(trx, templateId, roleId);
    const signerName = pick(input.signerName, role.signer_name);
    const signerEmail =
      input.signerEmail === undefined
        ? role.signer_email
        : (input.signerEmail?.toLowerCase() ?? null);
    checkFixedSigner(signerName, signerEmail);
    const now = deps.clock.now().toISOString();
    const changes: Updateable<TemplateRolesTable> = {
      name: pick(input.name, role.name),
      signer_name: signerName,
      signer_email: signerEmail,
      updated_at: now,
    };
    if (input.locale !== undefined)
      changes.locale = checkOptionalLocale(input.locale, 'body.locale');
    if (input.group !== undefined) changes.signing_group = input.group;
    if (input.order !== undefined && input.order !== role.position) {
      if (await repo.findRoleAtOrder(trx, templateId, input.order)) {
        throw new AppError('validation_error', `Role order ${input.order} is already taken`, [
          { path: 'body.order', message: `${input.order} is already taken by another role` },
        ]);
      }
      changes.position = input.order;
      await repo.reassignTemplateFields(trx, templateId, role.position, input.order, now);
    }
    await repo.updateRole(trx, roleId, changes);
    await repo.updateTemplate(trx, templateId, { updated_at: now });
    return toRole({ ...role, ...changes } as TemplateRoleRow);
  });
}

/**
 * Removes a role. Fields assigned to its order stay, so a replaced role keeps its placements;
 * a campaign refuses a template whose fields name no role.
 */
export async function removeRole(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  templateId: string,
  roleId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await repo.lockTemplate(trx, orgId, templateId);
    await requireRole(trx, templateId, roleId);
    await repo.deleteRole(trx, roleId);
    await repo.updateTemplate(trx, templateId, { updated_at: deps.clock.now().toISOString() });
  });
}

export async function listFields(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  templateId: string,
  query: ListPartsQueryT,
) {
  await requireTemplate(deps.db, orgId, templateId);
  const { rows, meta } = await repo.listTemplateFieldsPage(deps.db, templateId, {
    list: `template-fields:${templateId}`,
    limit: query.limit,
    cursor: query.cursor,
  });
  return { data: rows.map(toTemplateField), meta };
}

/** Places a field (at most 500 per template; `page` within the page count once a file is uploaded). */
export async function addField(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  templateId: string,
  input: FieldInputT,
) {
  return deps.db.transaction().execute(async (trx) => {
    const template = await repo.lockTemplate(trx, orgId, templateId);
    if ((await repo.countTemplateFields(trx, templateId)) >= MAX_FIELDS) {
      throw new AppError('limit_reached', `A template has at most ${MAX_FIELDS} fields`);
    }
    const now = deps.clock.now().toISOString();
    const [row] = buildTemplateFieldRows(templateId, [input], now);
    checkPage(input.page, template.page_count);
    await repo.insertTemplateFields(trx, [row]);
    await repo.updateTemplate(trx, templateId, { updated_at: now });
    return toTemplateField(row as TemplateFieldRow);
  });
}

/**
 * Places the fields an anchored body makes (every occurrence of its text in the template's file,
 * or the one it names) and answers them ([] when the text does not occur and `ignoreIfMissing` is
 * set). The same rules as a document's anchored fields (src/modules/documents-core/anchors.ts).
 */
export async function addAnchoredFields(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  orgId: string,
  templateId: string,
  input: AnchoredFieldInputT,
) {
  const found = await requireTemplate(deps.db, orgId, templateId);
  const [placed] = await placeAnchoredFields(deps, found.file_key, [input], () => 'body');
  return deps.db.transaction().execute(async (trx) => {
    const template = await repo.lockTemplate(trx, orgId, templateId);
    if (template.file_key !== found.file_key)
      throw new AppError('invalid_state', 'The file changed while its anchors were placed: retry');
    if ((await repo.countTemplateFields(trx, templateId)) + placed.length > MAX_FIELDS) {
      throw new AppError('limit_reached', `A template has at most ${MAX_FIELDS} fields`);
    }
    const now = deps.clock.now().toISOString();
    const rows = buildTemplateFieldRows(templateId, placed, now);
    await repo.insertTemplateFields(trx, rows);
    if (rows.length > 0) await repo.updateTemplate(trx, templateId, { updated_at: now });
    return rows.map((row) => toTemplateField(row as TemplateFieldRow));
  });
}

async function requireField(
  db: Parameters<typeof repo.findTemplateField>[0],
  templateId: string,
  fieldId: string,
): Promise<TemplateFieldRow> {
  const field = await repo.findTemplateField(db, templateId, fieldId);
  if (!field) throw notFound('Field');
  return field;
}

/** Edits a field; the rules apply to the field as it would be after the change. */
export async function updateField(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  templateId: string,
  fieldId: string,
  input: FieldPatchT,
) {
  return deps.db.transaction().execute(async (trx) => {
    const template = await repo.lockTemplate(trx, orgId, templateId);
    const field = await requireField(trx, templateId, fieldId);
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
    checkPage(merged.page, template.page_count);
    const now = deps.clock.now().toISOString();
    const changes: Updateable<TemplateFieldsTable> = {
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
    await repo.updateTemplateField(trx, fieldId, changes);
    await repo.updateTemplate(trx, templateId, { updated_at: now });
    return toTemplateField({ ...field, ...changes } as TemplateFieldRow);
  });
}

export async function removeField(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  templateId: string,
  fieldId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await repo.lockTemplate(trx, orgId, templateId);
    await requireField(trx, templateId, fieldId);
    await repo.deleteTemplateField(trx, fieldId);
    await repo.updateTemplate(trx, templateId, { updated_at: deps.clock.now().toISOString() });
  });
}
