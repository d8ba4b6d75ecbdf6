import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { KEY_TABLE_NAMES, signetTables } from './0007-change-notifications.ts';
import { STATEMENT_TRIGGERS, notifyChangesOn } from './0008-statement-change-notifications.ts';

/*
 * PostgreSQL: change notifications from the key tables only (api_keys, organizations). The read
 * cache they also served is gone (it answered nothing from memory under a realistic load: any
 * write anywhere retired all of it), and the API key cache needs to hear only of changes to what
 * a key may do. Every other table's triggers are dropped, so a write to them costs no trigger
 * call and no notification at commit (PostgreSQL serializes notifying commits).
 */

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of await signetTables(db)) {
    if (KEY_TABLE_NAMES.includes(table)) continue;
    for (const name of [...STATEMENT_TRIGGERS, 'signet_changes', 'signet_changes_truncate']) {
      await sql`drop trigger if exists ${sql.id(name)} on ${sql.table(table)}`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of await signetTables(db)) {
    await notifyChangesOn(db, table);
    await sql`drop trigger if exists signet_changes_truncate on ${sql.table(table)}`.execute(db);
    await sql`create trigger signet_changes_truncate after truncate on ${sql.table(table)}
      for each statement execute function signet_notify_change(${sql.lit(KEY_TABLE_NAMES.includes(table) ? 'k' : 'd')})`.execute(
      db,
    );
  }
}
