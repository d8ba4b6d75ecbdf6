import path from 'node:path';
import type { Config } from '../config.ts';
import { createDb } from './create-db.ts';

/**
 * The database handle for a configuration: PostgreSQL when DATABASE_URL says so, SQLite otherwise.
 * On PostgreSQL the server listens for changes to the key tables, for its API key cache (a
 * connection the CLI's short runs do not open); PERF_OFF=key-cache turns it off. On SQLite the
 * server lets the WAL grow to 10,000 pages before a commit checkpoints it (create-db.ts);
 * PERF_OFF=long-wal leaves SQLite's default of 1,000.
 */
export function openDatabase(config: Config, options: { server?: boolean } = {}) {
  return createDb({
    databaseUrl: config.databaseUrl,
    sqliteFile: path.join(config.dataDir, 'signet.db'),
    poolSize: config.databasePoolSize,
    watchChanges: options.server === true && !config.perfOff.has('key-cache'),
    namedStatements: !config.perfOff.has('named-statements'),
    walPages: options.server === true && !config.perfOff.has('long-wal') ? LONG_WAL : undefined,
  });
}

/** The server's WAL size, in pages of 4 KB, past which a commit checkpoints (40 MB). */
const LONG_WAL = 10_000;
