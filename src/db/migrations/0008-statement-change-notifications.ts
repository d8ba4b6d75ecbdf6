import { PostgresAdapter, sql, type Kysely } from 'kysely';
import {
  CHANGES_CHANNEL,
  changeKind,
  rowTriggersOn,
  signetTables,
} from './0007-change-notifications.ts';

/*
 * PostgreSQL: the change notifications of migration 0007, announced once per statement instead
 * of once per changed row. A row trigger is queued, fetched and called for every row: under a
 * load of creates (a document, its audit entry and its event per create, 25 creates per batched
 * statement, db/pg-insert-batch.ts) it was a tenth of PostgreSQL's CPU per create. A statement
 * trigger runs once per INSERT, UPDATE or DELETE (per table, in a WITH of several); the rows the
 * statement changed are its transition table, and it notifies only when that table holds a row,
 * so a statement that matches no row (a worker polling for work) still announces nothing.
 * PostgreSQL allows a transition table on a trigger of one event only: three triggers per table,
 * plus 0007's for TRUNCATE. Same channel, same payloads (`k` for key tables, `d` otherwise).
 *
 * A table added by a later migration must get them too (`notifyChangesOn`); a test fails when
 * one of the schema's tables lacks them.
 */

const EVENTS = [
  { event: 'insert', rows: 'new' },
  { event: 'update', rows: 'new' },
  { event: 'delete', rows: 'old' },
] as const;

/** The statement triggers' names, one per event (tests check every table has them). */
export const STATEMENT_TRIGGERS = EVENTS.map((e) => `signet_changes_${e.event}`);

/** Adds the triggers that announce changes to `table` (PostgreSQL only), replacing 0007's row trigger. */
export async function notifyChangesOn(db: Kysely<any>, table: string): Promise<void> {
  const kind = sql.lit(changeKind(table));
  await sql`drop trigger if exists signet_changes on ${sql.table(table)}`.execute(db);
  for (const { event, rows } of EVENTS) {
    const name = sql.id(`signet_changes_${event}`);
    await sql`drop trigger if exists ${name} on ${sql.table(table)}`.execute(db);
    await sql`create trigger ${name} after ${sql.raw(event)} on ${sql.table(table)}
      referencing ${sql.raw(rows)} table as changed_rows
      for each statement execute function signet_notify_changed_rows(${kind})`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create or replace function signet_notify_changed_rows() returns trigger language plpgsql as $$
    begin
      if exists (select from changed_rows) then
        perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, tg_argv[0]);
      end if;
      return null;
    end
  $$`.execute(db);
  for (const table of await signetTables(db)) await notifyChangesOn(db, table);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of await signetTables(db)) {
    for (const name of STATEMENT_TRIGGERS)
      await sql`drop trigger if exists ${sql.id(name)} on ${sql.table(table)}`.execute(db);
    await rowTriggersOn(db, table);
  }
  await sql`drop function if exists signet_notify_changed_rows()`.execute(db);
}
