import { isSqliteUnavailable } from '../db/sqlite-availability.ts';
import { AppError } from './errors.ts';

/*
 * A dependency that is down answers 503 with a code naming it, at once, rather than a 500 or a
 * request that hangs: `database_unavailable` (PostgreSQL restarting or unreachable; SQLite's write
 * lock held by another process past busy_timeout, its file not writable, its disk failing) and `storage_unavailable` (local directory not writable, S3 endpoint down). Clients
 * retry; /readyz reports the same.
 */

/** Network and server-state errors of the PostgreSQL driver (SQLite's: db/sqlite-availability.ts). */
const DB_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);
const DB_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down)|terminating connection/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (
    (typeof code === 'string' && DB_CODES.has(code)) ||
    isSqliteUnavailable(err) ||
    DB_MESSAGES.test(err.message)
  );
}

export const databaseUnavailable = () =>
  new AppError(
    'database_unavailable',
    'The database is unreachable right now; nothing was changed. Retry in a few seconds.',
    undefined,
    { 'retry-after': '5' },
  );

export const storageUnavailable = (operation: string) =>
  new AppError(
    'storage_unavailable',
    `File storage is unavailable right now (${operation} failed); nothing was stored. Retry in a few seconds.`,
    undefined,
    {
      'retry-after': '5',
    },
  );
