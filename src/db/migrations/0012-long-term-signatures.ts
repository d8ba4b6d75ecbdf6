import type { Kysely } from 'kysely';

/*
 * Long-term signatures: the PAdES level a document's signed PDF reached, when the certificate
 * of its newest timestamp expires (archive renewal adds a fresh document timestamp before
 * then), and the renewal claim that keeps several instances from renewing one document at once.
 * All nullable: documents sealed before this migration are B-B without timestamps.
 */

const COLUMNS = [
  ['pades_level', 'text'],
  ['timestamp_expires_at', 'text'],
  ['timestamp_renewal_claimed_until', 'text'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [column, type] of COLUMNS) {
    await db.schema.alterTable('documents').addColumn(column, type).execute();
  }
  await db.schema
    .createIndex('documents_timestamp_expires_at')
    .on('documents')
    .column('timestamp_expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('documents_timestamp_expires_at').execute();
  for (const [column] of COLUMNS) {
    await db.schema.alterTable('documents').dropColumn(column).execute();
  }
}
