import type { Dialect } from '../../db/create-db.ts';
import type { Executor, OrganizationExportRow } from '../../db/database.ts';

export const findExport = (db: Executor, id: string) =>
  db.selectFrom('organization_exports').selectAll().where('id', '=', id).executeTakeFirst();

export const findOrgExport = (db: Executor, orgId: string, id: string) =>
  db
    .selectFrom('organization_exports')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();

/** Exports of the organization created since `since`, and whether one of them is still going. */
export async function recentExports(db: Executor, orgId: string, since: string) {
  const rows = await db
    .selectFrom('organization_exports')
    .select(['status'])
    .where('org_id', '=', orgId)
    .where('created_at', '>=', since)
    .execute();
  const going = await db
    .selectFrom('organization_exports')
    .select('id')
    .where('org_id', '=', orgId)
    .where('status', 'in', ['queued', 'processing'])
    .executeTakeFirst();
  return { count: rows.length, inProgress: going !== undefined };
}

/**
 * Serializes the exports of one organization inside a transaction (the one-in-progress rule):
 * PostgreSQL locks the organization's row; SQLite has one writer, whose write lock the insert takes.
 */
export async function lockOrganization(trx: Executor, dialect: Dialect, orgId: string) {
  if (dialect === 'postgres')
    await trx
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', orgId)
      .forUpdate()
      .execute();
}

export const countDocuments = async (db: Executor, orgId: string) =>
  Number(
    (
      await db
        .selectFrom('documents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
    )?.n ?? 0,
  );

export const insertExport = (db: Executor, row: OrganizationExportRow) =>
  db.insertInto('organization_exports').values(row).execute();

export const setProgress = (db: Executor, id: string, processed: number, now: string) =>
  db
    .updateTable('organization_exports')
    .set({ processed_documents: processed, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .execute();

/** A page of the organization's documents, by id after `after`. */
export const documentsPage = (db: Executor, orgId: string, after: string, limit: number) =>
  db
    .selectFrom('documents')
    .select([
      'id',
      'name',
      'status',
      'original_file_key',
      'original_content_type',
      'signed_file_key',
      'document_hash',
      'signed_file_hash',
      'created_at',
      'completed_at',
    ])
    .where('org_id', '=', orgId)
    .where('deleted_at', 'is', null)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();

export const auditOf = (db: Executor, documentId: string) =>
  db
    .selectFrom('audit_logs')
    .selectAll()
    .where('document_id', '=', documentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const attachmentsOf = (db: Executor, documentId: string) =>
  db
    .selectFrom('attachments')
    .select(['id', 'name', 'file_key'])
    .where('document_id', '=', documentId)
    .orderBy('id')
    .execute();

/** Completed exports whose download window ended before `now`. */
export const expiredExports = (db: Executor, now: string, limit: number) =>
  db
    .selectFrom('organization_exports')
    .select(['id', 'file_key'])
    .where('status', '=', 'completed')
    .where('expires_at', '<', now)
    .limit(limit)
    .execute();
