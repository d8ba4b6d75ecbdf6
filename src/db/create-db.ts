import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteAdapter, SqliteDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Database, Db } from './database.ts';
import * as m0001 from './migrations/0001-initial.ts';
import * as m0003 from './migrations/0003-signing.ts';
import * as m0004 from './migrations/0004-templates-campaigns.ts';
import * as m0005 from './migrations/0005-pending-uploads.ts';
import * as m0006 from './migrations/0006-search-index.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

/** Migrations in order; listed here (not discovered on disk) so bundles and tsx agree. */
const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0003-signing': m0003,
  '0004-templates-campaigns': m0004,
  '0005-pending-uploads': m0005,
  '0006-search-index': m0006,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export interface DbOptions {
  /** `postgres://…`, or undefined for SQLite. */
  databaseUrl: string | undefined;
  /** SQLite file; `:memory:` is allowed for throwaway databases. */
  sqliteFile: string;
  poolSize?: number;
}

export function createDb(options: DbOptions): DbHandle {
  if (options.databaseUrl) {
    // Integer columns hold counts and sizes that fit a JS number; parse int8 (count(*)) as one.
    pg.types.setTypeParser(20, (v) => Number(v));
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle connection closed by the server (restart, failover, admin) must not crash the
    // process: the pool drops it and opens a fresh one for the next query.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  if (options.sqliteFile !== ':memory:') fs.mkdirSync(path.dirname(options.sqliteFile), { recursive: true });
  const sqlite = new SQLite(options.sqliteFile);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/**
 * Kysely prepares every query anew; preparing costs more than running a point lookup. Queries
 * are built from a fixed set of shapes, so prepared statements are kept by their SQL text
 * (bounded, least recently used dropped first). Reuse is safe: statements run synchronously.
 */
function withStatementCache(sqlite: SQLite.Database, max = 1000) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string): SQLite.Statement {
      let stmt = cache.get(sqlText);
      if (stmt) {
        cache.delete(sqlText);
      } else {
        stmt = sqlite.prepare(sqlText);
        if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sqlText, stmt);
      return stmt;
    },
  };
}

/**
 * Applies every pending migration; safe to call from several processes at once. On PostgreSQL
 * the migrator takes an advisory lock and runs in a transaction. Its SQLite adapter takes no
 * lock and runs without a transaction, so two processes starting on a fresh file could both
 * see a migration as pending; there the whole run holds SQLite's write lock (`BEGIN IMMEDIATE`,
 * waiting up to a minute for another process's run) and is applied all or nothing.
 */
export async function migrate(db: Db): Promise<string[]> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return runMigrator(db);
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
    await sql`pragma busy_timeout = 60000`.execute(conn);
    try {
      await sql`begin immediate`.execute(conn);
    } finally {
      await sql.raw(`pragma busy_timeout = ${Number(rows[0]?.timeout ?? 5000)}`).execute(conn);
    }
    try {
      const applied = await runMigrator(conn);
      await sql`commit`.execute(conn);
      return applied;
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
  });
}

async function runMigrator(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
