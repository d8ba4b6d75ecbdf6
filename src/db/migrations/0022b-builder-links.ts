import type { Kysely } from 'kysely';

/*
 * Builder links (README "The builder"): `PUBLIC_URL/build/{token}` opens the field builder of one
 * draft document or one template for an hour. Only the SHA-256 of the token is stored; exactly one
 * of `document_id` and `template_id` is set. No foreign key to either: a template is deleted for
 * good and takes its links with it (templates.repository.ts), a purged document too (retention.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('builder_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('document_id', 'text')
    .addColumn('template_id', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Links past their hour (the retention purge).
  await db.schema
    .createIndex('builder_links_expiry')
    .on('builder_links')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('builder_links').execute();
}
