import { PostgresAdapter, sql, type Kysely } from 'kysely';

/*
 * PostgreSQL: every statement that changes rows of one of Signet's tables sends a notification on
 * the channel `signet_changes` when its transaction commits, whoever runs it (another Signet instance,
 * the CLI, an operator in psql). Each server listens (db/pg-change-feed.ts) and retires what it
 * keeps in memory (read-cache.ts, the API key cache) when one arrives. The payload says whether
 * the write could change what an API key may do (`k`: keys, organizations) or not (`d`); within a
 * transaction PostgreSQL sends identical notifications once, so a transaction costs one or two
 * (the trigger runs per changed row; a few microseconds each; migration 0008 makes it one per
 * statement, and its `notifyChangesOn` is the one a later table's migration calls).
 *
 * SQLite needs none of this: its `data_version` tells a connection that another one committed.
 */

export const CHANGES_CHANNEL = 'signet_changes';
/** Tables whose rows decide what an API key may do: a change to one moves the keys marks. */
export const KEY_TABLE_NAMES = ['api_keys', 'organizations'];
/** A statement naming a key table (both dialects' marks, create-db.ts and pg-change-feed.ts). */
export const KEY_TABLES = new RegExp(`\\b(${KEY_TABLE_NAMES.join('|')})\\b`, 'i');

/** The payload of `table`'s notifications: `k` when a change to it may change what an API key may do. */
export function changeKind(table: string): 'k' | 'd' {
  return KEY_TABLE_NAMES.includes(table) ? 'k' : 'd';
}

/**
 * Adds the triggers that announce changes to `table` (PostgreSQL only): one per changed row, so
 * a statement that matches no row (a worker polling for work) announces nothing, and one per
 * TRUNCATE. As of this migration; 0008 replaces the row trigger.
 */
export async function rowTriggersOn(db: Kysely<any>, table: string): Promise<void> {
  const kind = sql.lit(changeKind(table));
  await sql`drop trigger if exists signet_changes on ${sql.table(table)}`.execute(db);
  await sql`drop trigger if exists signet_changes_truncate on ${sql.table(table)}`.execute(db);
  await sql`create trigger signet_changes after insert or update or delete on ${sql.table(table)}
    for each row execute function signet_notify_change(${kind})`.execute(db);
  await sql`create trigger signet_changes_truncate after truncate on ${sql.table(table)}
    for each statement execute function signet_notify_change(${kind})`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create or replace function signet_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, tg_argv[0]);
      return null;
    end
  $$`.execute(db);
  for (const table of await signetTables(db)) await rowTriggersOn(db, table);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of await signetTables(db)) {
    await sql`drop trigger if exists signet_changes on ${sql.table(table)}`.execute(db);
    await sql`drop trigger if exists signet_changes_truncate on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function if exists signet_notify_change()`.execute(db);
}

/** The schema's tables, except the migrator's own. */
export async function signetTables(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely\\_%'
    order by table_name`.execute(db);
  return rows.map((r) => r.name);
}
