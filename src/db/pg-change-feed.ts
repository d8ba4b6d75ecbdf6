import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CHANGES_CHANNEL, KEY_TABLES } from './migrations/0007-change-notifications.ts';

/*
 * The keys mark of a PostgreSQL database (DbHandle.keysMark), which lets a server keep API keys in
 * memory while the tables that decide what a key may do (api_keys, organizations) are unchanged.
 *
 * The mark moves
 * - when a statement of this process that names a key table has changed something (reported by
 *   the pool's clients as their queries finish, before the caller sees the result: an INSERT,
 *   UPDATE or DELETE by its row count, any other statement that may write always; again when the
 *   transaction that changed something ends), and
 * - when a notification arrives on `signet_changes` (migrations 0007, 0008 and 0011b: every
 *   statement that changed rows of a key table announces itself at commit, whoever runs it).
 * A key looked up under a mark read before its query was sent is therefore retired by any key
 * change this process made, and by another process's as soon as PostgreSQL delivers its
 * notification: typically well under a millisecond after that commit, which is the window in
 * which another instance's revocation may not be seen yet.
 *
 * The mark is null, and nothing is kept, while the feed is not known to work: until the listening
 * connection has received a notification this process sent through the pool (which proves that
 * notifications from other sessions arrive), whenever one of these pings, sent every second, has
 * not come back before the next, while the listening connection is down, and while the database
 * has no trigger function (not migrated yet). A pooler in transaction mode, which cannot deliver
 * notifications, thus leaves the key cache off instead of stale.
 */

interface ChangeFeedOptions {
  connectionString: string;
  /** Sends a ping through another session than the listener's. */
  ping: (channel: string, payload: string) => Promise<unknown>;
  /** How often a ping is sent, and how long it may take to come back. */
  pingIntervalMs?: number;
}

/** Per pool client: whether the transaction in progress has changed a key table. */
export interface QueryState {
  keys: boolean;
}

/** The statements whose execution cannot change a row. */
const READ = /^\s*(select|show|explain)\b/i;
const CONTROL = /^\s*(begin|start\s+transaction|savepoint|release|set|listen|unlisten)\b/i;
const ENDS_TRANSACTION = /^\s*(commit|rollback|end|abort)\b/i;
const ROLLBACK_TO = /^\s*rollback\s+(transaction\s+|work\s+)?to\b/i;
/** A statement whose row count covers everything it changed (not so a WITH's sub-statements). */
const PLAIN_DML = /^\s*(insert|update|delete)\b/i;

export class PgChangeFeed {
  /** Key writes by this process, and the notifications and feed restarts seen. */
  private localKeys = 0;
  private remoteKeys = 0;
  private healthy = false;
  private client: pg.Client | undefined;
  private stopped = false;
  private readonly instance = randomBytes(6).toString('hex');
  private sent = 0;
  private received = 0;
  private timer: NodeJS.Timeout | undefined;
  private retryMs = 100;
  private readonly ownSessions = new Set<number>();

  constructor(private readonly options: ChangeFeedOptions) {
    void this.connect();
  }

  readonly keysMark = (): string | null =>
    this.healthy ? `${this.localKeys}:${this.remoteKeys}` : null;

  /**
   * Called by a pool client when one of its queries has finished (or failed: `rowCount`
   * undefined), before its caller continues. Only statements naming a key table count: an
   * INSERT, UPDATE or DELETE that changed no row changed nothing; any other that may write counts,
   * as does one whose outcome is unknown. `state` remembers, per client, that the transaction in
   * progress changed a key table, so that its end (COMMIT, or ROLLBACK undoing it) moves the mark
   * again.
   */
  queryDone(text: string, state: QueryState, rowCount?: number | null): void {
    if (ENDS_TRANSACTION.test(text)) {
      if (state.keys) this.localKeys++;
      if (!ROLLBACK_TO.test(text)) state.keys = false;
      return;
    }
    if (!KEY_TABLES.test(text) || READ.test(text) || CONTROL.test(text)) return;
    if (rowCount === 0 && PLAIN_DML.test(text)) return;
    state.keys = true;
    this.localKeys++;
  }

  /** Called when a pool client is given back: a transaction left open there has ended. */
  released(state: QueryState): void {
    if (state.keys) this.localKeys++;
    state.keys = false;
  }

  /**
   * The pool's sessions, by backend process id: their commits were counted statement by statement
   * as they ran, so their notifications are not counted again (a key looked up just after a write
   * here stays valid). A session not known here (another process's, or one whose id a pooler
   * hides) counts as another's.
   */
  sessionOpened(pid: number | null | undefined): void {
    if (pid) this.ownSessions.add(pid);
  }

  sessionClosed(pid: number | null | undefined): void {
    if (pid) this.ownSessions.delete(pid);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.healthy = false;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.options.connectionString });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.healthy = false;
      client.end().catch(() => undefined);
      this.schedule(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 5_000);
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      if (this.client === client && n.channel === CHANGES_CHANNEL)
        this.notified(n.payload ?? '', n.processId);
    });
    this.client = client;
    try {
      await client.connect();
      // A server opens its database before migrating it: wait for the triggers (migration 0007)
      // on this connection, checking often, so that the marks come on soon after.
      while (
        !(
          await client.query<{ ok: boolean }>(
            `select to_regproc('signet_notify_change') is not null as ok`,
          )
        ).rows[0]?.ok
      ) {
        if (this.client !== client) return;
        await new Promise((resolve) => setTimeout(resolve, 100).unref());
      }
      await client.query(`listen ${CHANGES_CHANNEL}`);
    } catch {
      lost();
      return;
    }
    if (this.client !== client) return;
    this.retryMs = 100;
    this.pingRound();
  }

  /** Sends the next ping; the one before must have come back, or the marks go off until one does. */
  private pingRound(): void {
    if (this.stopped || !this.client) return;
    if (this.received < this.sent) this.healthy = false;
    const n = ++this.sent;
    this.options.ping(CHANGES_CHANNEL, `p:${this.instance}:${n}`).catch(() => undefined);
    this.schedule(() => this.pingRound(), this.options.pingIntervalMs ?? 1_000);
  }

  private notified(payload: string, pid: number): void {
    if (payload === 'k') {
      if (!this.ownSessions.has(pid)) this.remoteKeys++;
    } else if (payload.startsWith(`p:${this.instance}:`)) {
      const n = Number(payload.slice(this.instance.length + 3));
      this.received = Math.max(this.received, n);
      if (!this.healthy && n === this.sent) {
        // Anything may have changed while the feed was off: a mark never seen before.
        this.remoteKeys++;
        this.healthy = true;
      }
    }
  }

  private schedule(fn: () => void, ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(fn, ms);
    this.timer.unref();
  }
}
