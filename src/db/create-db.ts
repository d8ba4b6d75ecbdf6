/// <reference lib="es2024.string" />
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
  type Migration,
  type MigrationProvider,
} from 'kysely';
import type { Database, Db } from './database.ts';
import { withNamedStatements } from './named-statements.ts';
import { PgChangeFeed } from './pg-change-feed.ts';
import { SqliteAvailability } from './sqlite-availability.ts';
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
import * as m0011b from './migrations/0011b-key-change-notifications-only.ts';
import * as m0011b2 from './migrations/0011b2-documents-search-in-list-index.ts';
import * as m0012 from './migrations/0012-long-term-signatures.ts';
import * as m0012b from './migrations/0012b-verify-hash-indexes.ts';
import * as m0013a from './migrations/0013a-bulk-sends.ts';
import * as m0013b from './migrations/0013b-attachment-details.ts';
import * as m0014 from './migrations/0014-organization-branding.ts';
import * as m0014b from './migrations/0014b-event-log-indexes.ts';
import * as m0015 from './migrations/0015-campaign-uploads.ts';
import * as m0015b from './migrations/0015b-jobs-kind-index.ts';
import * as m0015c from './migrations/0015c-webhook-backoff.ts';
import * as m0016a from './migrations/0016a-exposure.ts';
import * as m0017a from './migrations/0017a-organization-exports.ts';
import * as m0020 from './migrations/0020-languages.ts';
import * as m0018a from './migrations/0018a-signer-access-codes.ts';
import * as m0021b from './migrations/0021b-sms-codes.ts';
import * as m0018b from './migrations/0018b-signer-consent.ts';
import * as m0021a from './migrations/0021a-reassign.ts';
import * as m0021c from './migrations/0021c-signing-groups.ts';
import * as m0021d from './migrations/0021d-embedding.ts';
import * as m0022a from './migrations/0022a-text-tags.ts';
import * as m0022b from './migrations/0022b-builder-links.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  /**
   * PostgreSQL, with `watchChanges`: a value that changes whenever the tables that decide what an
   * API key may do (api_keys, organizations) may have changed, by this process or, as soon as its
   * notification arrives, by any other connection (pg-change-feed.ts). Equal marks mean a key
   * looked up before is as it was. Read synchronously; null while unknown (nothing may then be
   * kept).
   */
  keysMark?: () => string | null;
  /** SQLite: whether writes can succeed now (false while another process holds the write lock, sqlite-availability.ts). */
  writable?: () => boolean;
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
  '0011b-key-change-notifications-only': m0011b,
  '0011b2-documents-search-in-list-index': m0011b2,
  '0012-long-term-signatures': m0012,
  '0012b-verify-hash-indexes': m0012b,
  '0013a-bulk-sends': m0013a,
  '0013b-attachment-details': m0013b,
  '0014-organization-branding': m0014,
  '0014b-event-log-indexes': m0014b,
  '0015-campaign-uploads': m0015,
  '0015b-jobs-kind-index': m0015b,
  '0015c-webhook-backoff': m0015c,
  '0016a-exposure': m0016a,
  '0017a-organization-exports': m0017a,
  '0020-languages': m0020,
  '0018a-signer-access-codes': m0018a,
  '0018b-signer-consent': m0018b,
  '0021b-sms-codes': m0021b,
  '0021a-reassign': m0021a,
  '0021c-signing-groups': m0021c,
  '0021d-embedding': m0021d,
  '0022a-text-tags': m0022a,
  '0022b-builder-links': m0022b,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

interface DbOptions {
  /** `postgres://…`, or undefined for SQLite. */
  databaseUrl: string | undefined;
  /** SQLite file; `:memory:` is allowed for throwaway databases. */
  sqliteFile: string;
  poolSize?: number;
  /**
   * PostgreSQL: keep the keys mark (DbHandle.keysMark) that lets the server keep API keys in
   * memory, listening for the database's change notifications on a connection of its own.
   */
  watchChanges?: boolean;
  /** PostgreSQL: the hottest statements named (named-statements.ts); default on. */
  namedStatements?: boolean;
}

/** How long a SQLite write waits for another process's write lock (the CLI, a second start) before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

export function createDb(options: DbOptions): DbHandle {
  if (options.databaseUrl) {
    // Integer columns hold counts and sizes that fit a JS number; parse int8 (count(*)) as one.
    pg.types.setTypeParser(20, (v) => Number(v));
    // A server that does not answer a connection within 3 s is treated as down (503 at once)
    // rather than leaving requests queued behind it.
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 3_000,
    });
    // An idle connection closed by the server (restart, failover, admin) must not crash the
    // process: the pool drops it and opens a fresh one for the next query.
    pool.on('error', () => undefined);
    // The same for a connection checked out at that moment (between the statements of a
    // transaction): node-pg emits its 'error' on the client, with no listener a crash. The
    // statement in progress fails (503 database_unavailable) and the pool discards the client.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const feed = options.watchChanges
      ? new PgChangeFeed({
          connectionString: options.databaseUrl,
          ping: (channel, payload) => pool.query('select pg_notify($1, $2)', [channel, payload]),
        })
      : undefined;
    if (feed) {
      // The backend's process id, which node-pg keeps but does not declare.
      const pid = (client: pg.PoolClient) =>
        (client as pg.PoolClient & { processID?: number }).processID;
      pool.on('connect', (client) => feed.sessionOpened(pid(client)));
      pool.on('remove', (client) => feed.sessionClosed(pid(client)));
    }
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: withNamedStatements(pool, feed, options.namedStatements !== false),
      }),
    });
    const close = async () => {
      await feed?.stop();
      await db.destroy();
    };
    return { db, dialect: 'postgres', keysMark: feed?.keysMark, close };
  }
  if (options.sqliteFile !== ':memory:') {
    // Readable by Signet's user only: the database holds every document's data. SQLite creates
    // its -wal and -shm files with the database file's own mode.
    fs.mkdirSync(path.dirname(options.sqliteFile), { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(options.sqliteFile, 'a', 0o600));
  }
  const sqlite = new SQLite(options.sqliteFile);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  // Sorts that no index serves (Signet's queries have indexes) are done in memory.
  sqlite.pragma('temp_store = MEMORY');
  const availability = new SqliteAvailability(sqlite, SQLITE_BUSY_TIMEOUT_MS);
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite, availability) }),
  });
  return {
    db,
    dialect: 'sqlite',
    writable: () => availability.writable(),
    close: () => db.destroy(),
  };
}

type Statement = Pick<SQLite.Statement, 'reader' | 'all' | 'run' | 'iterate'>;

/**
 * Kysely prepares every query anew; preparing costs more than running a point lookup. Queries
 * are built from a fixed set of shapes, so prepared statements are kept by their SQL text
 * (bounded, least recently used dropped first). Reuse is safe: statements run synchronously.
 * Each statement also makes its string parameters well-formed (wellFormed).
 */
function withStatementCache(sqlite: SQLite.Database, availability: SqliteAvailability, max = 1000) {
  const cache = new Map<string, Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string): Statement {
      let entry = cache.get(sqlText);
      if (entry) {
        cache.delete(sqlText);
      } else {
        const stmt = sqlite.prepare(sqlText);
        entry = {
          reader: stmt.reader,
          all: (params: unknown[]) =>
            availability.run(!stmt.readonly, () => stmt.all(wellFormed(params))),
          run: (params: unknown[]) =>
            availability.run(!stmt.readonly, () => stmt.run(wellFormed(params))),
          iterate: (params: unknown[]) => stmt.iterate(wellFormed(params)),
        } as Statement;
        if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sqlText, entry);
      return entry;
    },
  };
}

/**
 * The parameters with every string valid UTF-16. A lone surrogate (half a character, possible in
 * JSON text as `"\udfff"`) has no UTF-8 form: the driver would store its three WTF-8 bytes, read
 * back as three U+FFFD. It is stored as one U+FFFD instead, as PostgreSQL's driver does. The
 * check is cheap (V8 answers at once for strings of one-byte characters); copies only when needed.
 */
function wellFormed(parameters: unknown[]): unknown[] {
  for (const p of parameters) {
    if (typeof p === 'string' && !p.isWellFormed()) {
      return parameters.map((v) => (typeof v === 'string' ? v.toWellFormed() : v));
    }
  }
  return parameters;
}

/**
 * Applies every pending migration; safe to call from several processes at once. On PostgreSQL
 * the migrator takes an advisory lock and runs in a transaction. Its SQLite adapter takes no
 * lock and runs without a transaction, so two processes starting on a fresh file could both
 * see a migration as pending; there the whole run holds SQLite's write lock (`BEGIN IMMEDIATE`,
 * waiting up to a minute for another process's run) and is applied all or nothing.
 */
export async function migrate(db: Db, only?: ReadonlySet<string>): Promise<string[]> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return runMigrator(db, only);
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
    await sql`pragma busy_timeout = 60000`.execute(conn);
    try {
      await sql`begin immediate`.execute(conn);
    } finally {
      await sql.raw(`pragma busy_timeout = ${Number(rows[0]?.timeout ?? 5000)}`).execute(conn);
    }
    try {
      const applied = await runMigrator(conn, only);
      await sql`commit`.execute(conn);
      return applied;
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
  });
}

/**
 * `only`: apply just these migrations (a restore first builds the schema its backup was taken
 * with, loads the rows, then migrates forward).
 */
async function runMigrator(db: Db, only?: ReadonlySet<string>): Promise<string[]> {
  const some: MigrationProvider = {
    getMigrations: async () =>
      Object.fromEntries(Object.entries(migrations).filter(([name]) => only?.has(name))),
  };
  // Migration numbers are handed out ahead and land in any order: one numbered below a migration
  // already applied still runs (each is independent of the others' numbering).
  const migrator = new Migrator({
    db,
    provider: only ? some : provider,
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
