import { sql } from 'kysely';
import type {
  DocumentRow,
  DocumentStatus,
  DocumentUpdate,
  Executor,
  NewDocumentRow,
} from '../../db/database.ts';
import {
  likePattern,
  pageQuery,
  paginate,
  type PageMeta,
  type PageRequest,
} from '../../http/pagination.ts';
import { nameStatement } from '../../db/named-statements.ts';
import { allColumns, prepared, preparedInsert } from '../../db/prepared.ts';

/** The columns a list item shows. */
const LIST_COLUMNS = [
  'id',
  'name',
  'status',
  'signing_type',
  'file_size',
  'expires_at',
  'completed_at',
  'created_at',
  'updated_at',
  'template_id',
  'campaign_id',
  'bulk_send_id',
  'folder_id',
  'allow_reassign',
] as const;

export type DocumentListRow = Pick<DocumentRow, (typeof LIST_COLUMNS)[number]>;
export type DocumentCounts = {
  signer_count: number;
  field_count: number;
  attachment_count: number;
};
export type DocumentWithCounts = DocumentListRow & DocumentCounts;

/** A list item's columns and its children's counts; only those, a list page reads 26 rows. */
function withCounts(db: Executor) {
  return db
    .selectFrom('documents')
    .select(LIST_COLUMNS.map((c) => `documents.${c}` as const))
    .select((eb) => [
      eb
        .selectFrom('signers')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('signers.document_id', '=', 'documents.id')
        .as('signer_count'),
      eb
        .selectFrom('fields')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('fields.document_id', '=', 'documents.id')
        .as('field_count'),
      eb
        .selectFrom('attachments')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('attachments.document_id', '=', 'documents.id')
        .as('attachment_count'),
    ]);
}

/** A live (not deleted) document of the organization. */
export async function findDocument(
  db: Executor,
  orgId: string,
  id: string,
): Promise<DocumentRow | undefined> {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** findDocumentWithCounts for several documents in one read, in the order of `ids` (those found). */
export async function findDocumentsWithCounts(
  db: Executor,
  orgId: string,
  ids: readonly string[],
): Promise<DocumentWithCounts[]> {
  const rows = (await withCounts(db)
    .where('documents.id', 'in', ids)
    .where('documents.org_id', '=', orgId)
    .where('documents.deleted_at', 'is', null)
    .execute()) as DocumentWithCounts[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function findDocumentWithCounts(
  db: Executor,
  orgId: string,
  id: string,
): Promise<DocumentWithCounts | undefined> {
  return (await findDocumentsWithCounts(db, orgId, [id]))[0];
}

export async function listDocuments(
  db: Executor,
  orgId: string,
  filter: { status?: DocumentStatus; search?: string; folderId?: string; bulkSendId?: string },
  page: PageRequest,
): Promise<{ rows: DocumentWithCounts[]; meta: PageMeta }> {
  let q = withCounts(db)
    .where('documents.org_id', '=', orgId)
    .where('documents.deleted_at', 'is', null);
  if (filter.status) q = q.where('documents.status', '=', filter.status);
  if (filter.folderId) q = q.where('documents.folder_id', '=', filter.folderId);
  if (filter.bulkSendId) q = q.where('documents.bulk_send_id', '=', filter.bulkSendId);
  if (filter.search)
    q = q.where(sql<boolean>`documents.search_name like ${likePattern(filter.search)} escape '\\'`);
  // The most read list: a named statement on PostgreSQL (db/named-statements.ts); its text
  // varies only with which filters are given.
  const paged = pageQuery(q, { ...page, table: 'documents' });
  const compiled = paged.query.compile();
  const named: typeof compiled = { ...compiled, sql: nameStatement(compiled.sql) };
  const { rows, meta } = paged.toPage((await db.executeQuery(named)).rows);
  // The counts are scalar subqueries, typed nullable; count(*) is never null.
  return { rows: rows as DocumentWithCounts[], meta };
}

const DOCUMENT_COLUMNS = allColumns<NewDocumentRow>()([
  'id',
  'org_id',
  'name',
  'search_name',
  'status',
  'signing_type',
  'message',
  'email_subject',
  'email_message',
  'locale',
  'reminder_frequency',
  'otp_method',
  'require_kyc',
  'allow_reassign',
  'expires_at',
  'completed_at',
  'sent_at',
  'template_id',
  'campaign_id',
  'bulk_send_id',
  'folder_id',
  'file_key',
  'original_file_key',
  'original_content_type',
  'file_size',
  'page_count',
  'document_hash',
  'signed_file_key',
  'signed_file_hash',
  'created_at',
  'updated_at',
  'deleted_at',
  'pending_upload_key',
  'pending_upload_content_type',
  'pending_upload_max_bytes',
  'pending_upload_expires_at',
  'sealing_error',
  'pades_level',
  'timestamp_expires_at',
  'timestamp_renewal_claimed_until',
  'send_completed_copy',
  'redirect_url',
  'warnings',
  'shown_file_hash',
  'pending_upload_text_tags',
]);

export const insertDocument: (db: Executor, row: NewDocumentRow) => Promise<void> = preparedInsert(
  'documents',
  DOCUMENT_COLUMNS,
);

export async function updateDocument(
  db: Executor,
  id: string,
  changes: DocumentUpdate,
): Promise<void> {
  await db.updateTable('documents').set(changes).where('id', '=', id).execute();
}

/** The columns of a document without a pending direct upload (a new one, or one whose upload was settled). */
export const NO_PENDING_UPLOAD = {
  pending_upload_key: null,
  pending_upload_content_type: null,
  pending_upload_max_bytes: null,
  pending_upload_expires_at: null,
  pending_upload_text_tags: null,
} as const satisfies DocumentUpdate;

/**
 * Forgets the document's pending direct upload, only if it is still the one at `key` (another
 * request may have settled it, or a newer upload URL replaced it): true when this call did it.
 */
export async function clearPendingUpload(db: Executor, id: string, key: string): Promise<boolean> {
  const result = await db
    .updateTable('documents')
    .set(NO_PENDING_UPLOAD)
    .where('id', '=', id)
    .where('pending_upload_key', '=', key)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listAttachments(db: Executor, documentId: string) {
  return db
    .selectFrom('attachments')
    .selectAll()
    .where('document_id', '=', documentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listAudit(db: Executor, documentId: string, page: PageRequest) {
  return paginate(db.selectFrom('audit_logs').selectAll().where('document_id', '=', documentId), {
    ...page,
    direction: 'asc',
  });
}

const folderOfOrg = prepared<{ orgId: string; folderId: string }>((db, p) =>
  db.selectFrom('folders').select('id').where('id', '=', p.folderId).where('org_id', '=', p.orgId),
);

export async function folderExists(
  db: Executor,
  orgId: string,
  folderId: string,
): Promise<boolean> {
  const { rows } = await folderOfOrg.execute(db, { orgId, folderId });
  return rows.length > 0;
}

/** A live document by id with no organization check (workers and token-authenticated routes). */
export async function findDocumentById(db: Executor, id: string): Promise<DocumentRow | undefined> {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
