import type { Kysely } from 'kysely';

/*
 * Sealing that failed for good: the document is `action_required` and remembers why, until a
 * reseal is asked for. Nullable, so every existing document has no sealing failure.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('sealing_error', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('sealing_error').execute();
}
