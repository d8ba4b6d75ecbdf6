import { sql, type Kysely } from 'kysely';

/*
 * Exposure rules (docs/security.md):
 * - `code_failures`: wrong one-time codes per signer, and per campaign and address, over the life
 *   of their links (at most 25, then 403 `link_locked`);
 * - `signers.email_unproven`: 1 for an address a visitor typed on a public form and never proved
 *   with a code (null otherwise); the signed copy then goes as an expiring link, not an attachment;
 * - `organizations.embed_origins`: the origins allowed to frame the organization's signing and
 *   campaign pages (a JSON array of origins);
 * - the server's own signing and hashing key is now derived from SECRET_KEY, no longer the value
 *   kept in `settings` (`server_secret`), which is deleted. What it protected was short-lived: upload
 *   URLs issued before the upgrade (an hour at most) are refused, and clients request new ones as
 *   for an expired URL; the one-time codes outstanding (ten minutes at most) are deleted here, so
 *   a signer or visitor asks for a new code rather than having a right code counted as wrong.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('code_failures')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Nullable without a default (null: proven), so every insert that does not name it stays valid,
  // the batched creates on PostgreSQL included (db/pg-insert-batch.ts).
  await db.schema.alterTable('signers').addColumn('email_unproven', 'integer').execute();
  await db.schema
    .alterTable('organizations')
    .addColumn('embed_origins', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
    .execute();
  await sql`delete from settings where key = ${'server_secret'}`.execute(db);
  await sql`delete from signing_otps`.execute(db);
  await sql`delete from campaign_otps`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('embed_origins').execute();
  await db.schema.alterTable('signers').dropColumn('email_unproven').execute();
  await db.schema.dropTable('code_failures').execute();
}
