import type { Kysely } from 'kysely';

/*
 * The signer's flow: secret signing links (stored only as SHA-256), emailed one-time codes, and
 * what a signer's session records (first view, where they signed from, identity review, mail
 * delivery). The new signer columns are nullable, so rows written before this migration stay valid.
 */

const SIGNER_COLUMNS = [
  'viewed_at',
  'ip_address',
  'user_agent',
  'geo_city',
  'geo_country',
  'decline_reason',
  'verification_status',
  'verification_note',
  'last_notified_at',
  'delivery_failed_at',
  'delivery_error',
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signing_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('signer_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('signing_tokens_signer')
    .on('signing_tokens')
    .columns(['signer_id'])
    .execute();

  await db.schema
    .createTable('signing_otps')
    .addColumn('signer_id', 'text', (c) => c.primaryKey())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addColumn('window_started_at', 'text', (c) => c.notNull())
    .addColumn('window_sends', 'integer', (c) => c.notNull())
    .execute();

  for (const column of SIGNER_COLUMNS) {
    await db.schema.alterTable('signers').addColumn(column, 'text').execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of SIGNER_COLUMNS) {
    await db.schema.alterTable('signers').dropColumn(column).execute();
  }
  await db.schema.dropTable('signing_otps').ifExists().execute();
  await db.schema.dropTable('signing_tokens').ifExists().execute();
}
