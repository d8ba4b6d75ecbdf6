import type { Kysely } from 'kysely';

/*
 * Consent to do business electronically (ESIGN §101(c)): the organization's `requireConsent` and
 * `consentText` (null: Signet's default; a string; or a JSON object of locale → text), and per
 * signer the exact text accepted, its locale, its SHA-256 and when.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('require_consent', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('organizations').addColumn('consent_text', 'text').execute();
  for (const column of ['consent_text', 'consent_locale', 'consent_sha256', 'consented_at'])
    await db.schema.alterTable('signers').addColumn(column, 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['consent_text', 'consent_locale', 'consent_sha256', 'consented_at'])
    await db.schema.alterTable('signers').dropColumn(column).execute();
  await db.schema.alterTable('organizations').dropColumn('consent_text').execute();
  await db.schema.alterTable('organizations').dropColumn('require_consent').execute();
}
