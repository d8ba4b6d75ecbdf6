import type { Kysely } from 'kysely';

/*
 * Identity evidence uploads a signer made since the sender last reviewed their evidence: bounded
 * (IDENTITY_MAX_ATTEMPTS), reset by each review, so a signing link cannot upload without end.
 * Null counts as 0: no default, so inserts that do not name it (batched ones too) stay valid.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('signers').addColumn('identity_attempts', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('signers').dropColumn('identity_attempts').execute();
}
