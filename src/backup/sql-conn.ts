import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Dialect } from '../db/create-db.ts';
import { columnTypeOf, type ColumnType } from './row-codec.ts';

/*
 * Backups and restores talk to the database through a connection of their own, below Kysely:
 * one connection holds the snapshot (a read transaction), and values come back as the drivers
 * hold them natively (big integers as BigInt or text, bytea as bytes, numeric as text), which the
 * row codec turns into their portable form. Kysely's pool and type parsers serve the API instead.
 */

export interface SqlConn {
  readonly dialect: Dialect;
  /** Rows as objects (catalog queries). */
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Rows as arrays of column values, in select order (data). */
  rows(sql: string, params?: readonly unknown[]): Promise<unknown[][]>;
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  /** `$n` on PostgreSQL, `?` on SQLite. */
  param(n: number): string;
  close(): Promise<void>;
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * SQLite file `file`: readonly for a snapshot, or read-write for a restore. Integers come back as
 * BigInt (exact beyond 2^53); statements are prepared once per text.
 */
export function openSqlite(file: string, options: { readonly: boolean }): SqlConn {
  const db = new SQLite(file, { readonly: options.readonly, fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (text: string, raw = false) => {
    const key = `${raw ? 'r' : 'o'}:${text}`;
    let stmt = cache.get(key);
    if (!stmt) {
      stmt = db.prepare(text);
      if (stmt.reader) stmt.safeIntegers(true).raw(raw);
      if (cache.size > 200) cache.clear();
      cache.set(key, stmt);
    }
    return stmt;
  };
  return {
    dialect: 'sqlite',
    query: async (text, params = []) => prepare(text).all(...params) as Record<string, unknown>[],
    rows: async (text, params = []) => prepare(text, true).all(...params) as unknown[][],
    run: async (text, params = []) => {
      const stmt = prepare(text);
      if (stmt.reader) stmt.all(...params);
      else stmt.run(...params);
    },
    param: () => '?',
    close: async () => {
      db.close();
    },
  };
}

/** Values the backup reads exactly: everything as PostgreSQL's text, except these. */
const PG_PARSERS: Record<number, (text: string) => unknown> = {
  16: (t) => t === 't', // bool
  17: (t) => Buffer.from(t.slice(2), 'hex'), // bytea, hex output
  21: Number, // int2
  23: Number, // int4
  700: Number, // float4: PostgreSQL prints the shortest text that reads back exactly
  701: Number, // float8
};
const pgTypes = {
  getTypeParser: (oid: number) => PG_PARSERS[oid] ?? ((text: string) => text),
};

export async function openPostgres(url: string): Promise<SqlConn> {
  const client = new pg.Client({ connectionString: url, types: pgTypes });
  await client.connect();
  // A dropped connection fails the statement in progress; without a listener it would crash.
  client.on('error', () => undefined);
  return {
    dialect: 'postgres',
    query: async (text, params = []) => (await client.query(text, [...params])).rows,
    rows: async (text, params = []) =>
      (await client.query({ text, values: [...params], rowMode: 'array' })).rows as unknown[][],
    run: async (text, params = []) => {
      await client.query(text, [...params]);
    },
    param: (n) => `$${n}`,
    close: () => client.end(),
  };
}

export interface ColumnInfo {
  name: string;
  type: ColumnType;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  /** Empty for a table without one. */
  primaryKey: string[];
  /** SQLite: a WITHOUT ROWID table (stored in its primary key's order). */
  withoutRowid?: boolean;
  /** Foreign keys: this table's column → the table it references. */
  references: { column: string; table: string; nullable: boolean }[];
}

/** Kysely's own bookkeeping and SQLite's: the migrations are recorded in the manifest instead. */
const INTERNAL = /^(kysely_migration|kysely_migration_lock|sqlite_.*)$/;

const str = (v: unknown) => String(v);

/** Every table of the database (or of the snapshot, inside its transaction), by name. */
export async function listTables(conn: SqlConn): Promise<TableInfo[]> {
  const names =
    conn.dialect === 'sqlite'
      ? await conn.query(`select name from sqlite_master where type = 'table' order by name`)
      : await conn.query(
          `select table_name as name from information_schema.tables
           where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
        );
  const tables: TableInfo[] = [];
  for (const { name } of names) {
    if (INTERNAL.test(str(name))) continue;
    tables.push(
      conn.dialect === 'sqlite'
        ? await sqliteTable(conn, str(name))
        : await postgresTable(conn, str(name)),
    );
  }
  return tables;
}

async function sqliteTable(conn: SqlConn, name: string): Promise<TableInfo> {
  const cols = await conn.query(`select * from pragma_table_info(?) order by cid`, [name]);
  const fks = await conn.query(`select * from pragma_foreign_key_list(?)`, [name]);
  const notNull = new Map(cols.map((c) => [str(c.name), Number(c.notnull) === 1]));
  const [listed] = await conn.query(`select wr from pragma_table_list(?)`, [name]);
  return {
    name,
    withoutRowid: Number(listed?.wr) === 1,
    columns: cols.map((c) => ({ name: str(c.name), type: columnTypeOf(str(c.type)) })),
    primaryKey: cols
      .filter((c) => Number(c.pk) > 0)
      .sort((a, b) => Number(a.pk) - Number(b.pk))
      .map((c) => str(c.name)),
    references: fks.map((f) => ({
      column: str(f.from),
      table: str(f.table),
      nullable: !notNull.get(str(f.from)),
    })),
  };
}

async function postgresTable(conn: SqlConn, name: string): Promise<TableInfo> {
  const cols = await conn.query(
    `select column_name, data_type, is_nullable from information_schema.columns
     where table_schema = current_schema() and table_name = $1 order by ordinal_position`,
    [name],
  );
  const pk = await conn.query(
    `select a.attname from pg_index i
     join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
     where i.indrelid = $1::regclass and i.indisprimary
     order by array_position(i.indkey::int2[], a.attnum)`,
    [quote(name)],
  );
  const fks = await conn.query(
    `select a.attname as column, c.confrelid::regclass::text as ref from pg_constraint c
     join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
     where c.contype = 'f' and c.conrelid = $1::regclass`,
    [quote(name)],
  );
  const nullable = new Map(cols.map((c) => [str(c.column_name), c.is_nullable === 'YES']));
  return {
    name,
    columns: cols.map((c) => ({ name: str(c.column_name), type: columnTypeOf(str(c.data_type)) })),
    primaryKey: pk.map((r) => str(r.attname)),
    references: fks.map((f) => ({
      column: str(f.column),
      table: str(f.ref).replace(/^"|"$/g, ''),
      nullable: nullable.get(str(f.column)) ?? true,
    })),
  };
}

/** The migrations recorded in the database (none when it was never migrated). */
export async function appliedMigrations(conn: SqlConn): Promise<string[]> {
  const exists =
    conn.dialect === 'sqlite'
      ? await conn.query(
          `select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`,
        )
      : await conn.query(`select 1 from information_schema.tables
           where table_schema = current_schema() and table_name = 'kysely_migration'`);
  if (exists.length === 0) return [];
  const rows = await conn.query(`select name from kysely_migration order by name`);
  return rows.map((r) => str(r.name));
}
