import { sql, type Kysely } from 'kysely';

/*
 * Attachments say what they are (`signer_upload` from a `file` field, or `identity_evidence`,
 * the only kind before), whose they are, and the SHA-256 of their bytes. Rows from before keep
 * `identity_evidence` and an empty hash (their bytes were never hashed).
 */
const COLUMNS = [
  ['kind', 'text', "'identity_evidence'"],
  ['sha256', 'text', "''"],
  ['signer_id', 'text', null],
  ['field_id', 'text', null],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  for (const [column, type, fallback] of COLUMNS) {
    await db.schema
      .alterTable('attachments')
      .addColumn(column, type, (c) => (fallback ? c.notNull().defaultTo(sql.raw(fallback)) : c))
      .execute();
  }
  await db.schema
    .createIndex('attachments_field')
    .on('attachments')
    .columns(['field_id', 'signer_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('attachments_field').execute();
  for (const [column] of COLUMNS)
    await db.schema.alterTable('attachments').dropColumn(column).execute();
}
