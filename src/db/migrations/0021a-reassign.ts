import type { Kysely } from 'kysely';

/*
 * Hand-over (README "Reassign"): `allow_reassign` on documents and templates (0: a signer cannot
 * hand over; a template's is the default of the documents made from it; bulk sends keep theirs in
 * their settings JSON), and `replaced_at` on signing links: set on every live link of a signer who
 * handed over, so an old link answers 410 `link_replaced` instead of a bare 403. Defaults keep every
 * insert that does not name the columns valid, the batched creates on PostgreSQL included.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['documents', 'templates'])
    await db.schema
      .alterTable(table)
      .addColumn('allow_reassign', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  await db.schema.alterTable('signing_tokens').addColumn('replaced_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('signing_tokens').dropColumn('replaced_at').execute();
  for (const table of ['documents', 'templates'])
    await db.schema.alterTable(table).dropColumn('allow_reassign').execute();
}
