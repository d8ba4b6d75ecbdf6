import type { Kysely } from 'kysely';

/*
 * Uploads that go straight to the storage bucket (S3 presigned PUTs): the document remembers the
 * key it handed out until the bytes there are verified on the document's next use. All nullable,
 * so existing rows (and every document of the local driver) have no pending upload.
 */

const COLUMNS = [
  ['pending_upload_key', 'text'],
  ['pending_upload_content_type', 'text'],
  ['pending_upload_max_bytes', 'integer'],
  ['pending_upload_expires_at', 'text'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  for (const [column, type] of COLUMNS) {
    await db.schema.alterTable('documents').addColumn(column, type).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [column] of COLUMNS) {
    await db.schema.alterTable('documents').dropColumn(column).execute();
  }
}
