import path from 'node:path';
import type { Config } from '../config.ts';
import { createDb } from './create-db.ts';

/**
 * The database handle for a configuration: PostgreSQL when DATABASE_URL says so, SQLite otherwise.
 * On PostgreSQL the server listens for changes to the key tables, for its API key cache (a
 * connection the CLI's short runs do not open); PERF_OFF=key-cache turns it off.
 */
export function openDatabase(config: Config, options: { server?: boolean } = {}) {
  return createDb({
    databaseUrl: config.databaseUrl,
    sqliteFile: path.join(config.dataDir, 'signet.db'),
    poolSize: config.databasePoolSize,
    watchChanges: options.server === true && !config.perfOff.has('key-cache'),
    namedStatements: !config.perfOff.has('named-statements'),
  });
}
