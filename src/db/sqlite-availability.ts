import type SQLite from 'better-sqlite3';

/*
 * SQLite is a file: it is "down" when another process holds its write lock past busy_timeout
 * (a backup tool, a shell left in a transaction), or when the file or its directory cannot be
 * written (read-only mount, disk full, I/O errors). better-sqlite3 is synchronous, so each write
 * that waits for a held lock blocks the whole event loop for busy_timeout. After the first such
 * failure the connection stops waiting (busy_timeout 0): every write then fails at once (503
 * database_unavailable) until one succeeds, which restores the normal wait. /readyz probes the
 * write lock while degraded, so an idle server notices the recovery too.
 */

/** better-sqlite3's codes (extended result codes included) that mean the database cannot be written now. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|READONLY|IOERR|FULL|CANTOPEN|PROTOCOL)(_|$)/;

export function isSqliteUnavailable(err: unknown): boolean {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && UNAVAILABLE.test(code);
}

export class SqliteAvailability {
  private degraded = false;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly busyTimeoutMs: number,
  ) {}

  /** Runs one statement; `writes`: whether it may write (a success then ends a degraded spell). */
  run<T>(writes: boolean, fn: () => T): T {
    let out: T;
    try {
      out = fn();
    } catch (err) {
      if (isSqliteUnavailable(err)) this.degrade();
      throw err;
    }
    if (writes && this.degraded) this.recover();
    return out;
  }

  /** Whether writes are expected to succeed; while degraded, tries to take the write lock first (at once, no wait). */
  writable(): boolean {
    if (!this.degraded) return true;
    // A transaction of this connection in progress holds the lock (or will find out itself).
    if (this.sqlite.inTransaction) return true;
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
      this.sqlite.exec('ROLLBACK');
    } catch {
      return false;
    }
    this.recover();
    return true;
  }

  private degrade(): void {
    if (this.degraded) return;
    this.degraded = true;
    this.sqlite.pragma('busy_timeout = 0');
  }

  private recover(): void {
    this.degraded = false;
    this.sqlite.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
  }
}
