import type { Kysely } from 'kysely';

/*
 * Text tags (README "Text tags"): a document's and a template's `warnings` from the last intake
 * (JSON array; null: none) and `shown_file_hash` (SHA-256 of the PDF signers see when tags were
 * removed from the upload; null when it is the upload itself), a pending S3 upload's
 * `pending_upload_text_tags` (1: read tags once it arrives), and a field's `origin` (`tag`: made
 * by a text tag, replaced at the next intake with tags; null: placed otherwise). Nullable
 * columns without a default, so every insert that does not name them stays valid.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('warnings', 'text').execute();
  await db.schema.alterTable('documents').addColumn('shown_file_hash', 'text').execute();
  await db.schema
    .alterTable('documents')
    .addColumn('pending_upload_text_tags', 'integer')
    .execute();
  await db.schema.alterTable('templates').addColumn('warnings', 'text').execute();
  await db.schema.alterTable('templates').addColumn('shown_file_hash', 'text').execute();
  await db.schema.alterTable('fields').addColumn('origin', 'text').execute();
  await db.schema.alterTable('template_fields').addColumn('origin', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('warnings').execute();
  await db.schema.alterTable('documents').dropColumn('shown_file_hash').execute();
  await db.schema.alterTable('documents').dropColumn('pending_upload_text_tags').execute();
  await db.schema.alterTable('templates').dropColumn('warnings').execute();
  await db.schema.alterTable('templates').dropColumn('shown_file_hash').execute();
  await db.schema.alterTable('fields').dropColumn('origin').execute();
  await db.schema.alterTable('template_fields').dropColumn('origin').execute();
}
