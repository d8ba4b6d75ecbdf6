import type { Kysely } from 'kysely';

/*
 * What an organization shows of itself on signing pages and in mail: an accent colour, a logo
 * (a small PNG or JPEG kept as a data URL, served at /logos/{orgId}) and the address replies to
 * its mail go to. All nullable: an organization without them looks like Signet.
 */
const COLUMNS = ['brand_color', 'logo', 'reply_to'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  for (const column of COLUMNS)
    await db.schema.alterTable('organizations').addColumn(column, 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS)
    await db.schema.alterTable('organizations').dropColumn(column).execute();
}
