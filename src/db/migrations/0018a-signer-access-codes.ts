import type { Kysely } from 'kysely';

/*
 * Signer access codes: a code the sender gives the signer out of band, asked by the signing page
 * before anything of the document is shown. Only a keyed hash is stored (src/modules/signing/access-codes.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signers').addColumn('access_code_hash', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signers').dropColumn('access_code_hash').execute();
}
