/// <reference lib="es2024.string" />
import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver, type QueryResult, type SqliteDatabase } from 'kysely';

export interface GroupCommitStats {
  /** COMMITs that ended a batch (each made one or more transactions durable). */
  commits: number;
  /** Transactions committed through those batches. */
  transactions: number;
}

/** Transactions of one batch: they become durable together, or fail together. */
interface Batch {
  members: number;
  done: Promise<void>;
  settle(error?: unknown): void;
}

/** The largest batch: one more transaction commits it at once instead of waiting for the turn's end. */
const MAX_BATCH = 64;

// Captured at load: tests that fake timers must not stall commits.
const nextTurn = globalThis.setImmediate;

/**
 * Group commit for SQLite. A transaction that begins waits for the end of the current turn of
 * the event loop; there the transactions of the turn run one after another, each inside a
 * savepoint of one shared outer transaction (the batch), and the batch commits once. A commit
 * writes each changed page to the WAL once, and the pages a create touches (the right-most
 * leaves of its tables and indexes) are the same for every create of a batch, so thirty creates
 * cost little more than one commit's writes.
 *
 * What callers observe is unchanged: `transaction().execute()` resolves only after the COMMIT
 * that made its changes durable (so an answer is never sent for data that could still be lost);
 * a transaction that throws is rolled back to its savepoint, alone; a query outside a
 * transaction runs before the round or after its COMMIT, so it never reads uncommitted data.
 * A COMMIT that fails (disk full, I/O error) fails every transaction of its batch and rolls all
 * of them back; none of them had been answered. (A deferred constraint would fail the same way;
 * Signet's schema has none.)
 */
export class GroupCommitSqliteDialect extends SqliteDialect {
  readonly #driver: GroupCommitDriver;

  constructor(statements: SqliteDatabase) {
    super({ database: statements });
    this.#driver = new GroupCommitDriver(statements);
  }

  override createDriver(): Driver {
    return this.#driver;
  }

  stats(): GroupCommitStats {
    return { ...this.#driver.stats };
  }
}

/**
 * What Kysely holds between acquireConnection and releaseConnection. It does not always hold the
 * connection itself: a transaction hands it on while it waits for its round and for its COMMIT,
 * and a later query through the same lease (`db.connection()`) queues for it again.
 */
class Lease implements DatabaseConnection {
  holding = true;
  /** Inside a transaction's savepoint (from begin until release or rollback). */
  inTransaction = false;

  constructor(private readonly driver: GroupCommitDriver) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.run<R>(this, query);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    await this.driver.ready(this);
    for (const row of this.driver.statements.prepare(query.sql).iterate(wellFormed(query.parameters))) yield { rows: [row as R] };
  }
}

const SAVEPOINT = 'signet_tx';

class GroupCommitDriver implements Driver {
  readonly stats: GroupCommitStats = { commits: 0, transactions: 0 };
  #held = false;
  readonly #waiting: Array<() => void> = [];
  #batch: Batch | undefined;
  /** Transactions waiting for the next round, in the order they asked. */
  readonly #round: Array<() => void> = [];
  #roundScheduled = false;

  constructor(readonly statements: SqliteDatabase) {}

  async init(): Promise<void> {}

  /** First come, first served: the connection passes straight to the next waiter. */
  #take(): Promise<void> | undefined {
    if (!this.#held) {
      this.#held = true;
      return undefined;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #handOver(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#take();
    return new Lease(this);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#handOverFrom(connection as Lease);
  }

  #handOverFrom(lease: Lease): void {
    if (!lease.holding) return;
    lease.holding = false;
    this.#handOver();
  }

  /**
   * A query outside a transaction never meets an open batch, so it reads (and writes) committed
   * data only: a batch is open only while its round's transactions run, and the round queues
   * its COMMIT right behind them, ahead of anything that queues for the connection later.
   */
  run<R>(lease: Lease, query: CompiledQuery): Promise<QueryResult<R>> {
    if (lease.holding) return Promise.resolve(this.#execute<R>(query));
    return this.ready(lease).then(() => this.#execute<R>(query));
  }

  /** Through a lease that handed the connection on (`db.connection()` after a transaction), queue for it again. */
  async ready(lease: Lease): Promise<void> {
    if (lease.holding) return;
    await this.#take();
    lease.holding = true;
  }

  #execute<R>(query: CompiledQuery): QueryResult<R> {
    const stmt = this.statements.prepare(query.sql);
    const parameters = wellFormed(query.parameters);
    if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  #exec(sql: string): void {
    this.statements.prepare(sql).run([]);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // Step aside until this turn's round; resumed holding the connection again.
    this.#handOverFrom(lease);
    await new Promise<void>((resume) => {
      this.#round.push(resume);
      this.#scheduleRound();
    });
    lease.holding = true;
    if (!this.#batch) this.#openBatch();
    this.#exec(`savepoint ${SAVEPOINT}`);
    lease.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    const batch = this.#batch!;
    try {
      this.#exec(`release ${SAVEPOINT}`);
    } catch (err) {
      this.#abandon(lease, err);
      throw err;
    }
    lease.inTransaction = false;
    batch.members++;
    if (batch.members >= MAX_BATCH) this.#commitBatch();
    // Others join the batch while this transaction waits for its COMMIT.
    this.#handOverFrom(lease);
    return batch.done;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // Already released into a batch whose COMMIT failed: the batch was rolled back as a whole.
    if (!lease.inTransaction) return;
    lease.inTransaction = false;
    try {
      this.#exec(`rollback to ${SAVEPOINT}`);
      this.#exec(`release ${SAVEPOINT}`);
    } catch (err) {
      this.#abandon(lease, err);
      throw err;
    }
  }

  /**
   * The savepoint could not be released or rolled back: the outer transaction is rolled back,
   * and the transactions already in the batch fail with it.
   */
  #abandon(lease: Lease, error: unknown): void {
    lease.inTransaction = false;
    const batch = this.#batch;
    this.#batch = undefined;
    this.#rollbackQuietly();
    batch?.settle(error);
  }

  #rollbackQuietly(): void {
    try {
      this.#exec('rollback');
    } catch {
      // SQLite rolled it back already (it does on some I/O errors).
    }
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${savepointName(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${savepointName(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${savepointName(name)}`));
  }

  #openBatch(): void {
    this.#exec('begin');
    let settle!: (error?: unknown) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // A batch whose transactions all rolled back has nobody waiting on it.
    done.catch(() => undefined);
    this.#batch = { members: 0, done, settle };
  }

  /**
   * At the end of this turn (once every request that arrived in it has been read), the
   * transactions that asked to begin run one after another, then their batch commits: the
   * round's queue entries go behind whoever waits for the connection already, and the COMMIT
   * behind them. Running the transactions back to back, not each amid its request's HTTP
   * work, also keeps SQLite's pages and code warm in the CPU caches.
   */
  #scheduleRound(): void {
    if (this.#roundScheduled) return;
    this.#roundScheduled = true;
    nextTurn(() => {
      this.#roundScheduled = false;
      this.#waiting.push(...this.#round.splice(0), () => this.#flush());
      if (!this.#held) {
        this.#held = true;
        this.#waiting.shift()!();
      }
    });
  }

  #flush(): void {
    try {
      this.#commitBatch();
    } finally {
      this.#handOver();
    }
  }

  /** Commits the open batch; called only by whoever holds the connection. */
  #commitBatch(): void {
    const batch = this.#batch;
    if (!batch) return;
    this.#batch = undefined;
    try {
      this.#exec('commit');
    } catch (err) {
      this.#rollbackQuietly();
      batch.settle(err);
      return;
    }
    if (batch.members > 0) {
      this.stats.commits++;
      this.stats.transactions += batch.members;
    }
    batch.settle();
  }

  async destroy(): Promise<void> {
    // Transactions asked for before this reach their round, and the round queues its COMMIT, first.
    do await new Promise((resolve) => nextTurn(resolve));
    while (this.#roundScheduled);
    await this.#take();
    try {
      this.#commitBatch();
    } finally {
      this.statements.close();
      this.#handOver();
    }
  }
}

function savepointName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`Invalid savepoint name: ${name}`);
  return name;
}

/**
 * The parameters with every string valid UTF-16. A lone surrogate (half a character, possible in
 * JSON text as `"\udfff"`) has no UTF-8 form: the driver would store its three WTF-8 bytes, read
 * back as three U+FFFD. It is stored as one U+FFFD instead, as PostgreSQL's driver does. The
 * check is cheap (V8 answers at once for strings of one-byte characters); copies only when needed.
 */
function wellFormed(parameters: readonly unknown[]): readonly unknown[] {
  for (const p of parameters) {
    if (typeof p === 'string' && !p.isWellFormed()) {
      return parameters.map((v) => (typeof v === 'string' ? v.toWellFormed() : v));
    }
  }
  return parameters;
}
