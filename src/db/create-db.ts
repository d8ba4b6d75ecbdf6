import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteAdapter, SqliteDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Database, Db } from './database.ts';
import { withNamedStatements } from './named-statements.ts';
import { PgChangeFeed } from './pg-change-feed.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import { GroupCommitSqliteDialect, type GroupCommitStats } from './sqlite-group-commit.ts';
import * as m0001 from './migrations/0001-initial.ts';
import * as m0003 from './migrations/0003-signing.ts';
import * as m0004 from './migrations/0004-templates-campaigns.ts';
import * as m0005 from './migrations/0005-pending-uploads.ts';
import * as m0006 from './migrations/0006-search-index.ts';
import * as m0007 from './migrations/0007-change-notifications.ts';
import * as m0008 from './migrations/0008-statement-change-notifications.ts';
import * as m0009 from './migrations/0009-identity-attempts.ts';
import * as m0010a from './migrations/0010a-sealing-failures.ts';
import * as m0010b from './migrations/0010b-idempotency-per-key.ts';
import * as m0012 from './migrations/0012-long-term-signatures.ts';
import * as m0012b from './migrations/0012b-verify-hash-indexes.ts';
import * as m0013a from './migrations/0013a-bulk-sends.ts';
import * as m0013b from './migrations/0013b-attachment-details.ts';
import * as m0014 from './migrations/0014-organization-branding.ts';
import * as m0014b from './migrations/0014b-event-log-indexes.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  /**
   * A value that changes whenever the database may have changed, by this process (rows inserted,
   * updated or deleted on its connections, committed or not) or by any other connection (a commit:
   * at once on SQLite, as soon as its notification arrives on PostgreSQL, pg-change-feed.ts).
   * Equal marks mean the database is as it was. Read synchronously; null while unknown (nothing
   * may then be cached). Absent when the handle was opened without `watchChanges`.
   */
  changeMark?: () => string | null;
  /**
   * Like changeMark, but moved by this process only through writes to the tables that decide what
   * an API key may do (keys, organizations); any other connection's commit to them still moves
   * it. Equal marks mean a key looked up before is as it was.
   */
  keysMark?: () => string | null;
  /** SQLite only: how many transactions its group commits made durable, in how many COMMITs. */
  commitStats?: () => GroupCommitStats;
  close(): Promise<void>;
}

/** Migrations in order; listed here (not discovered on disk) so bundles and tsx agree. */
export const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0003-signing': m0003,
  '0004-templates-campaigns': m0004,
  '0005-pending-uploads': m0005,
  '0006-search-index': m0006,
  '0007-change-notifications': m0007,
  '0008-statement-change-notifications': m0008,
  '0009-identity-attempts': m0009,
  '0010a-sealing-failures': m0010a,
  '0010b-idempotency-per-key': m0010b,
  '0012-long-term-signatures': m0012,
  '0012b-verify-hash-indexes': m0012b,
  '0013a-bulk-sends': m0013a,
  '0013b-attachment-details': m0013b,
  '0014-organization-branding': m0014,
  '0014b-event-log-indexes': m0014b,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export interface DbOptions {
  /** `postgres://…`, or undefined for SQLite. */
  databaseUrl: string | undefined;
  /** SQLite file; `:memory:` is allowed for throwaway databases. */
  sqliteFile: string;
  poolSize?: number;
  /**
   * SQLite file only: checkpoint the WAL on a worker thread instead of inside commits
   * (sqlite-checkpointer.ts). For the long-running server; short-lived processes (the CLI) and
   * tests leave it off.
   */
  checkpointInBackground?: boolean;
  /**
   * Keep the change marks (DbHandle.changeMark, keysMark) that let the server cache reads. On
   * PostgreSQL this listens for the database's change notifications on a connection of its own;
   * SQLite's marks cost nothing until read. Default: on for SQLite, off for PostgreSQL.
   */
  watchChanges?: boolean;
  /** SQLite: group commit (sqlite-group-commit.ts); default on. */
  groupCommit?: boolean;
  /** PostgreSQL: the hottest statements named (named-statements.ts); default on. */
  namedStatements?: boolean;
}

export function createDb(options: DbOptions): DbHandle {
  if (options.databaseUrl) {
    // Integer columns hold counts and sizes that fit a JS number; parse int8 (count(*)) as one.
    pg.types.setTypeParser(20, (v) => Number(v));
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle connection closed by the server (restart, failover, admin) must not crash the
    // process: the pool drops it and opens a fresh one for the next query.
    pool.on('error', () => undefined);
    const feed = options.watchChanges
      ? new PgChangeFeed({ connectionString: options.databaseUrl, ping: (channel, payload) => pool.query('select pg_notify($1, $2)', [channel, payload]) })
      : undefined;
    if (feed) {
      // The backend's process id, which node-pg keeps but does not declare.
      const pid = (client: pg.PoolClient) => (client as pg.PoolClient & { processID?: number }).processID;
      pool.on('connect', (client) => feed.sessionOpened(pid(client)));
      pool.on('remove', (client) => feed.sessionClosed(pid(client)));
    }
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool, feed, options.namedStatements !== false) }) });
    const close = async () => {
      await feed?.stop();
      await db.destroy();
    };
    return { db, dialect: 'postgres', changeMark: feed?.changeMark, keysMark: feed?.keysMark, close };
  }
  if (options.sqliteFile !== ':memory:') fs.mkdirSync(path.dirname(options.sqliteFile), { recursive: true });
  const sqlite = new SQLite(options.sqliteFile);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // The group commit runs each transaction in a savepoint, whose journal SQLite would otherwise
  // spill to a temporary file past 64 KiB. Sorts that no index serves (Signet's queries have
  // indexes) are then also done in memory.
  sqlite.pragma('temp_store = MEMORY');
  const statements = withStatementCache(sqlite);
  const dialect = options.groupCommit === false ? undefined : new GroupCommitSqliteDialect(statements);
  const db = new Kysely<Database>({ dialect: dialect ?? new SqliteDialect({ database: statements }) });
  const checkpointer =
    options.checkpointInBackground && options.sqliteFile !== ':memory:'
      ? startCheckpointer(options.sqliteFile, (pages) => sqlite.pragma(`wal_autocheckpoint = ${pages}`))
      : undefined;
  const close = async () => {
    await db.destroy();
    // Last to close, the worker's connection checkpoints what is left and removes the WAL.
    await checkpointer?.stop();
  };
  const marks = options.watchChanges === false ? {} : changeMarksOf(sqlite, statements);
  return { db, dialect: 'sqlite', ...marks, commitStats: dialect ? () => dialect.stats() : undefined, close };
}

/**
 * Kysely prepares every query anew; preparing costs more than running a point lookup. Queries
 * are built from a fixed set of shapes, so prepared statements are kept by their SQL text
 * (bounded, least recently used dropped first). Reuse is safe: statements run synchronously.
 * Every statement passes through here right before it runs, which the change marks use: a row
 * change (INSERT, UPDATE, DELETE) is seen by SQLite's `total_changes()` once it has run, so the
 * marks' reading is dropped (`onChange`) to be taken afresh after it; any other statement that
 * may write (DDL) is counted (`writes`); and statements that may write naming a table API keys
 * depend on are counted apart (`keyWrites`).
 */
function withStatementCache(sqlite: SQLite.Database, max = 1000) {
  const cache = new Map<string, { stmt: SQLite.Statement; rows: boolean; keys: boolean }>();
  const wrapper = {
    writes: 0,
    keyWrites: 0,
    onChange: () => {},
    close: () => sqlite.close(),
    prepare(sqlText: string): SQLite.Statement {
      let entry = cache.get(sqlText);
      if (entry) {
        cache.delete(sqlText);
      } else {
        const stmt = sqlite.prepare(sqlText);
        entry = { stmt, rows: ROW_CHANGE.test(sqlText), keys: !stmt.readonly && m0007.KEY_TABLES.test(sqlText) };
        if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sqlText, entry);
      if (!entry.stmt.readonly) {
        if (entry.rows) wrapper.onChange();
        else wrapper.writes++;
        if (entry.keys) wrapper.keyWrites++;
      }
      return entry.stmt;
    },
  };
  return wrapper;
}

/** Statements whose changes `total_changes()` counts. */
const ROW_CHANGE = /^\s*(insert|update|delete|replace|with)\b/i;

/**
 * The change marks of a SQLite database (DbHandle.changeMark, keysMark): the rows this
 * connection has changed (`total_changes()`, which a statement that matches no row leaves as it
 * was, so the background workers' polls do not retire the caches), the other statements of this
 * process that may write, and SQLite's `data_version`, which moves when another connection
 * commits. The keys mark counts instead every statement that may write naming a key table.
 * Reading both values takes a statement and a shared-memory lock, so the reading is kept for the
 * rest of the event loop's turn (the requests of one turn were all received before it began),
 * and dropped before any statement that may change rows runs.
 */
function changeMarksOf(sqlite: SQLite.Database, statements: ReturnType<typeof withStatementCache>) {
  const read = sqlite.prepare('select total_changes(), data_version from pragma_data_version').raw();
  let reading: unknown[] | undefined;
  let scheduled = false;
  const forget = () => {
    reading = undefined;
    scheduled = false;
  };
  statements.onChange = () => {
    reading = undefined;
  };
  const current = () => {
    if (reading === undefined) {
      reading = read.get() as unknown[];
      if (!scheduled) {
        scheduled = true;
        setImmediate(forget);
      }
    }
    return reading;
  };
  return {
    changeMark: () => {
      const [changes, version] = current();
      return `${statements.writes}:${changes}:${version}`;
    },
    keysMark: () => `${statements.keyWrites}:${current()[1]}`,
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
  // Migration numbers are handed out ahead and land in any order: one numbered below a migration
  // already applied still runs (each is independent of the others' numbering).
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
