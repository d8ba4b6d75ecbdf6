import type { Kysely } from 'kysely';

/*
 * Files a campaign visitor attaches to a `file` field before submitting (README, "Signer file uploads"): there is no
 * document yet, so each is kept here, named by its attachment id, until a submission takes it
 * (it then becomes the document's attachment and leaves this table) or the retention purge
 * removes it unclaimed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('campaign_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('campaign_id', 'text', (c) => c.notNull().references('campaigns.id'))
    .addColumn('field_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('file_size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('campaign_uploads_created')
    .on('campaign_uploads')
    .column('created_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('campaign_uploads').execute();
}
