import type { Kysely } from 'kysely';

/* Verification finds the document a PDF belongs to by its SHA-256 (signed file or original). */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('documents_signed_file_hash')
    .on('documents')
    .column('signed_file_hash')
    .execute();
  await db.schema
    .createIndex('documents_document_hash')
    .on('documents')
    .column('document_hash')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('documents_signed_file_hash').execute();
  await db.schema.dropIndex('documents_document_hash').execute();
}
