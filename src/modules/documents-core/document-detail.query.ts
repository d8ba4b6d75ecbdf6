import { CompiledQuery } from 'kysely';
import type { Dialect } from '../../db/create-db.ts';
import type {
  AttachmentRow,
  DocumentRow,
  Executor,
  FieldRow,
  SignerRow,
} from '../../db/database.ts';
import { nameStatement } from '../../db/named-statements.ts';

/*
 * The document detail in one statement: the document row with its signers, fields and attachments
 * aggregated as JSON arrays by the database, in the orders of their own lists. Four round trips
 * through the query builder and the driver cost about three times this one (measured with
 * `npm run bench -- get-by-id`); the detail is the API's most read answer.
 */

export type DetailSigner = Pick<
  SignerRow,
  | 'id'
  | 'name'
  | 'email'
  | 'phone'
  | 'role'
  | 'position'
  | 'signing_group'
  | 'status'
  | 'signed_at'
  | 'created_at'
  | 'delivery_failed_at'
  | 'delivery_error'
  | 'verification_status'
  | 'locale'
  | 'delivery'
  | 'otp_method'
  | 'sms_failed_at'
  | 'sms_error'
>;
export type DetailField = Pick<
  FieldRow,
  | 'id'
  | 'type'
  | 'label'
  | 'page'
  | 'x'
  | 'y'
  | 'width'
  | 'height'
  | 'required'
  | 'read_only'
  | 'assigned_to'
  | 'placeholder'
  | 'default_value'
  | 'options'
  | 'value'
>;
export type DetailAttachment = Pick<
  AttachmentRow,
  | 'id'
  | 'name'
  | 'content_type'
  | 'file_size'
  | 'sha256'
  | 'kind'
  | 'signer_id'
  | 'field_id'
  | 'created_at'
>;

interface DocumentDetailRows {
  row: DocumentRow;
  signers: DetailSigner[];
  fields: DetailField[];
  attachments: DetailAttachment[];
}

const SIGNER_COLUMNS: (keyof DetailSigner)[] = [
  'id',
  'name',
  'email',
  'phone',
  'role',
  'position',
  'signing_group',
  'status',
  'signed_at',
  'created_at',
  'delivery_failed_at',
  'delivery_error',
  'verification_status',
  'locale',
  'delivery',
  'otp_method',
  'sms_failed_at',
  'sms_error',
];
const FIELD_COLUMNS: (keyof DetailField)[] = [
  'id',
  'type',
  'label',
  'page',
  'x',
  'y',
  'width',
  'height',
  'required',
  'read_only',
  'assigned_to',
  'placeholder',
  'default_value',
  'options',
  'value',
];
const ATTACHMENT_COLUMNS: (keyof DetailAttachment)[] = [
  'id',
  'name',
  'content_type',
  'file_size',
  'sha256',
  'kind',
  'signer_id',
  'field_id',
  'created_at',
];

function childArray(dialect: Dialect, table: string, columns: string[], orderBy: string): string {
  const pairs = columns.map((c) => `'${c}', c.${c}`).join(', ');
  // Both aggregate in the given order; an empty set gives NULL in PostgreSQL, `[]` in SQLite.
  const array =
    dialect === 'postgres'
      ? `coalesce(json_agg(json_build_object(${pairs}) order by ${orderBy}), '[]'::json)`
      : `json_group_array(json_object(${pairs}) order by ${orderBy})`;
  return `(select ${array} from ${table} c where c.document_id = d.id)`;
}

function detailSql(dialect: Dialect): string {
  const [p1, p2] = dialect === 'postgres' ? ['$1', '$2'] : ['?', '?'];
  return (
    `select d.*, ${childArray(dialect, 'signers', SIGNER_COLUMNS, 'c.position, c.id')} as detail_signers, ` +
    `${childArray(dialect, 'fields', FIELD_COLUMNS, 'c.created_at, c.id')} as detail_fields, ` +
    `${childArray(dialect, 'attachments', ATTACHMENT_COLUMNS, 'c.created_at, c.id')} as detail_attachments ` +
    `from documents d where d.id = ${p1} and d.org_id = ${p2} and d.deleted_at is null`
  );
}

const SQL: Record<Dialect, string> = {
  sqlite: detailSql('sqlite'),
  postgres: nameStatement(detailSql('postgres')),
};

/** SQLite hands JSON back as text; the PostgreSQL driver has already parsed it. */
const parsed = <T>(value: unknown): T =>
  (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** A live document of the organization with the children its detail shows; undefined when there is none. */
export async function findDocumentDetail(
  db: Executor,
  dialect: Dialect,
  orgId: string,
  id: string,
): Promise<DocumentDetailRows | undefined> {
  const { rows } = await db.executeQuery<
    DocumentRow & { detail_signers: unknown; detail_fields: unknown; detail_attachments: unknown }
  >(CompiledQuery.raw(SQL[dialect], [id, orgId]));
  const row = rows[0];
  if (!row) return undefined;
  // The row keeps the three aggregate columns (no copy of its ~40 columns); readers ignore them.
  return {
    row,
    signers: parsed<DetailSigner[]>(row.detail_signers),
    fields: parsed<DetailField[]>(row.detail_fields),
    attachments: parsed<DetailAttachment[]>(row.detail_attachments),
  };
}
