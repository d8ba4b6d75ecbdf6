import { sql, type Insertable, type Updateable } from 'kysely';
import type {
  Executor,
  TemplateFieldRow,
  TemplateFieldsTable,
  TemplateRoleRow,
  TemplateRolesTable,
  TemplateRow,
  TemplatesTable,
} from '../../db/database.ts';
import { notFound } from '../../http/errors.ts';
import { likePattern, paginate, type PageMeta, type PageRequest } from '../../http/pagination.ts';

export type TemplateWithCounts = TemplateRow & { role_count: number; field_count: number };

function withCounts(db: Executor) {
  return db
    .selectFrom('templates')
    .selectAll('templates')
    .select((eb) => [
      eb
        .selectFrom('template_roles')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('template_roles.template_id', '=', 'templates.id')
        .as('role_count'),
      eb
        .selectFrom('template_fields')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('template_fields.template_id', '=', 'templates.id')
        .as('field_count'),
    ]);
}

export async function findTemplate(
  db: Executor,
  orgId: string,
  id: string,
): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

export async function listTemplates(
  db: Executor,
  orgId: string,
  filter: { search?: string },
  page: PageRequest,
) {
  let q = withCounts(db).where('templates.org_id', '=', orgId);
  if (filter.search)
    q = q.where(sql<boolean>`templates.search_name like ${likePattern(filter.search)} escape '\\'`);
  return paginate(q, { ...page, table: 'templates' }) as Promise<{
    rows: TemplateWithCounts[];
    meta: PageMeta;
  }>;
}

export async function insertTemplate(db: Executor, row: Insertable<TemplatesTable>): Promise<void> {
  await db.insertInto('templates').values(row).execute();
}

export async function updateTemplate(
  db: Executor,
  id: string,
  changes: Updateable<TemplatesTable>,
): Promise<void> {
  await db.updateTable('templates').set(changes).where('id', '=', id).execute();
}

export async function deleteTemplate(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('template_fields').where('template_id', '=', id).execute();
  await db.deleteFrom('template_roles').where('template_id', '=', id).execute();
  await db.deleteFrom('builder_links').where('template_id', '=', id).execute();
  await db.deleteFrom('templates').where('id', '=', id).execute();
}

/**
 * The template of the organization, locked until the transaction ends (a same-value update takes
 * the row lock on PostgreSQL; SQLite has a single writer): concurrent edits of one template's
 * roles and fields run one after another, so the per-template limits and unique orders hold.
 */
export async function lockTemplate(trx: Executor, orgId: string, id: string): Promise<TemplateRow> {
  const result = await trx
    .updateTable('templates')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw notFound('Template');
  return trx.selectFrom('templates').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function countCampaignsUsing(db: Executor, templateId: string): Promise<number> {
  const row = await db
    .selectFrom('campaigns')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('template_id', '=', templateId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/* Roles */

export async function listRoles(db: Executor, templateId: string): Promise<TemplateRoleRow[]> {
  return db
    .selectFrom('template_roles')
    .selectAll()
    .where('template_id', '=', templateId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** One page of roles in signing order (the cursor carries the position; see signers.repository). */
export async function listRolesPage(db: Executor, templateId: string, page: PageRequest) {
  return paginate(
    db.selectFrom('template_roles').selectAll().where('template_id', '=', templateId),
    {
      ...page,
      direction: 'asc',
      sortColumn: 'position',
    },
  );
}

export async function findRole(
  db: Executor,
  templateId: string,
  roleId: string,
): Promise<TemplateRoleRow | undefined> {
  return db
    .selectFrom('template_roles')
    .selectAll()
    .where('template_id', '=', templateId)
    .where('id', '=', roleId)
    .executeTakeFirst();
}

export async function findRoleAtOrder(
  db: Executor,
  templateId: string,
  position: number,
): Promise<TemplateRoleRow | undefined> {
  return db
    .selectFrom('template_roles')
    .selectAll()
    .where('template_id', '=', templateId)
    .where('position', '=', position)
    .executeTakeFirst();
}

export async function insertRoles(
  db: Executor,
  rows: Insertable<TemplateRolesTable>[],
): Promise<void> {
  if (rows.length > 0) await db.insertInto('template_roles').values(rows).execute();
}

export async function updateRole(
  db: Executor,
  roleId: string,
  changes: Updateable<TemplateRolesTable>,
): Promise<void> {
  await db.updateTable('template_roles').set(changes).where('id', '=', roleId).execute();
}

export async function deleteRole(db: Executor, roleId: string): Promise<void> {
  await db.deleteFrom('template_roles').where('id', '=', roleId).execute();
}

/* Fields */

export async function listTemplateFields(
  db: Executor,
  templateId: string,
): Promise<TemplateFieldRow[]> {
  return db
    .selectFrom('template_fields')
    .selectAll()
    .where('template_id', '=', templateId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listTemplateFieldsPage(db: Executor, templateId: string, page: PageRequest) {
  return paginate(
    db.selectFrom('template_fields').selectAll().where('template_id', '=', templateId),
    { ...page, direction: 'asc' },
  );
}

export async function countTemplateFields(db: Executor, templateId: string): Promise<number> {
  const row = await db
    .selectFrom('template_fields')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('template_id', '=', templateId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function findTemplateField(
  db: Executor,
  templateId: string,
  fieldId: string,
): Promise<TemplateFieldRow | undefined> {
  return db
    .selectFrom('template_fields')
    .selectAll()
    .where('template_id', '=', templateId)
    .where('id', '=', fieldId)
    .executeTakeFirst();
}

export async function insertTemplateFields(
  db: Executor,
  rows: Insertable<TemplateFieldsTable>[],
): Promise<void> {
  if (rows.length > 0) await db.insertInto('template_fields').values(rows).execute();
}

export async function updateTemplateField(
  db: Executor,
  fieldId: string,
  changes: Updateable<TemplateFieldsTable>,
): Promise<void> {
  await db.updateTable('template_fields').set(changes).where('id', '=', fieldId).execute();
}

export async function deleteTemplateField(db: Executor, fieldId: string): Promise<void> {
  await db.deleteFrom('template_fields').where('id', '=', fieldId).execute();
}

/** Moves the fields assigned to one role order to another (the role changed its order). */
export async function reassignTemplateFields(
  db: Executor,
  templateId: string,
  from: number,
  to: number,
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('template_fields')
    .set({ assigned_to: to, updated_at: now })
    .where('template_id', '=', templateId)
    .where('assigned_to', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
