import type { Kysely } from 'kysely';

/*
 * Embedding (README "Embedding"): a signer's `delivery` (`embedded`, or null: by email), a
 * document's `send_completed_copy` (0: no completed-copy mails; null or 1: mailed) and its
 * `redirect_url` (null: none). Nullable columns without a default, so every insert that does not
 * name them stays valid, the batched creates on PostgreSQL included (db/pg-insert-batch.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signers').addColumn('delivery', 'text').execute();
  await db.schema.alterTable('documents').addColumn('send_completed_copy', 'integer').execute();
  await db.schema.alterTable('documents').addColumn('redirect_url', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signers').dropColumn('delivery').execute();
  await db.schema.alterTable('documents').dropColumn('send_completed_copy').execute();
  await db.schema.alterTable('documents').dropColumn('redirect_url').execute();
}
