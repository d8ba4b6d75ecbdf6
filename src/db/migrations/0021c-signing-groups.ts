import type { Kysely } from 'kysely';

/*
 * Signing groups (README "Signing groups"): `signing_group` on signers and template roles, the
 * turn a signer takes in a sequential document; null means its `position` (the API's `group`
 * defaults to `order`). Nullable without a default, so every insert that does not name it stays
 * valid, the batched creates on PostgreSQL included (db/pg-insert-batch.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['signers', 'template_roles'])
    await db.schema.alterTable(table).addColumn('signing_group', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['signers', 'template_roles'])
    await db.schema.alterTable(table).dropColumn('signing_group').execute();
}
