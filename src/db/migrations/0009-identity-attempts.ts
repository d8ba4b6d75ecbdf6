import { sql, type Kysely } from 'kysely';

/*
 * Identity evidence uploads a signer made since the sender last reviewed their evidence: bounded
 * (IDENTITY_MAX_ATTEMPTS), reset by each review, so a signing link cannot upload without end.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('signers').addColumn('identity_attempts', 'integer', (c) => c.notNull().defaultTo(sql.raw('0'))).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('signers').dropColumn('identity_attempts').execute();
}
