import type { Kysely } from 'kysely';

/*
 * Organization exports (docs/backup.md): a ZIP of every document of an organization, built by a job
 * into storage and downloadable for 24 hours. `file_size` is a bigint: a ZIP may pass 4 GB.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization_exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total_documents', 'integer', (c) => c.notNull())
    .addColumn('processed_documents', 'integer', (c) => c.notNull())
    .addColumn('file_key', 'text')
    .addColumn('file_size', 'bigint')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('expires_at', 'text')
    .execute();
  // An organization's exports newest first (the per-day bound, the one-in-progress check).
  await db.schema
    .createIndex('organization_exports_org_created')
    .on('organization_exports')
    .columns(['org_id', 'created_at'])
    .execute();
  // Finished exports whose download expired (the retention purge).
  await db.schema
    .createIndex('organization_exports_expiry')
    .on('organization_exports')
    .columns(['status', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_exports').execute();
}
