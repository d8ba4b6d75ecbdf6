import { sql, type Kysely } from 'kysely';

/*
 * Languages (README "Languages"): `locale` (nullable: inherit) on documents, signers, template
 * roles and campaigns; the organization's `default_locale` (`en`) and `time_zone` (`UTC`), in which
 * its signers read their pages, mails and certificate page. Bulk-send rows keep their `locale` in
 * their JSON data. Nullable columns without a default, so every insert that does not name them
 * stays valid, the batched creates on PostgreSQL included (db/pg-insert-batch.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['documents', 'signers', 'template_roles', 'campaigns'])
    await db.schema.alterTable(table).addColumn('locale', 'text').execute();
  await db.schema
    .alterTable('organizations')
    .addColumn('default_locale', 'text', (c) => c.notNull().defaultTo(sql`'en'`))
    .execute();
  await db.schema
    .alterTable('organizations')
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo(sql`'UTC'`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['documents', 'signers', 'template_roles', 'campaigns'])
    await db.schema.alterTable(table).dropColumn('locale').execute();
  await db.schema.alterTable('organizations').dropColumn('time_zone').execute();
  await db.schema.alterTable('organizations').dropColumn('default_locale').execute();
}
