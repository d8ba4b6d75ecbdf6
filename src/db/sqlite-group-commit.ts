import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';

/** What the driver needs of a better-sqlite3 database (the statement cache of create-db.ts). */
export interface SqliteStatements {
  prepare(sql: string): {
    reader: boolean;
    all(parameters: readonly unknown[]): unknown[];
    run(parameters: readonly unknown[]): { changes: number; lastInsertRowid: number | bigint };
    iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
  };
  close(): void;
}

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
 * Group commit for SQLite. Each Kysely transaction runs inside a savepoint of a shared outer
 * transaction (the batch); the batch commits once per turn of the event loop, after every
 * transaction that was ready to run in that turn has run. A commit writes each changed page to
 * the WAL once, and the pages a create touches (the right-most leaves of its tables and indexes)
 * are the same for every create of the batch, so ten creates cost about one commit's writes.
 *
 * What callers observe is unchanged: `transaction().execute()` resolves only after the COMMIT
 * that made its changes durable (so an answer is never sent for data that could still be lost);
 * a transaction that throws is rolled back to its savepoint, alone; a query outside a
 * transaction first commits the open batch, so nothing reads data that is not committed yet.
 * A COMMIT that fails (disk full, I/O error) fails every transaction of its batch and rolls all
 * of them back; none of them had been answered. (A deferred constraint would fail the same way;
 * Signet's schema has none.)
 */
export class GroupCommitSqliteDialect extends SqliteDialect {
  readonly #driver: GroupCommitDriver;

  constructor(statements: SqliteStatements) {
    super({ database: statements as never });
    this.#driver = new GroupCommitDriver(statements);
  }

  override createDriver(): Driver {
    return this.#driver;
  }

  stats(): GroupCommitStats {
    return { ...this.#driver.stats };
  }
}

/** One hold of the single connection; Kysely hands it back through releaseConnection. */
class Lease implements DatabaseConnection {
  released = false;
  /** Inside a transaction's savepoint (from begin until release or rollback). */
  inTransaction = false;

  constructor(private readonly driver: GroupCommitDriver) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.run<R>(this, query);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    await this.driver.committed(this);
    for (const row of this.driver.statements.prepare(query.sql).iterate(query.parameters)) yield { rows: [row as R] };
  }
}

const SAVEPOINT = 'signet_tx';

class GroupCommitDriver implements Driver {
  readonly stats: GroupCommitStats = { commits: 0, transactions: 0 };
  #held = false;
  readonly #waiting: Array<() => void> = [];
  #batch: Batch | undefined;

  constructor(readonly statements: SqliteStatements) {}

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
    this.#release(connection as Lease);
  }

  #release(lease: Lease): void {
    if (lease.released) return;
    lease.released = true;
    this.#handOver();
  }

  run<R>(lease: Lease, query: CompiledQuery): Promise<QueryResult<R>> {
    if (lease.inTransaction || !this.#batch) return Promise.resolve(this.#execute<R>(query));
    return this.committed(lease).then(() => this.#execute<R>(query));
  }

  /**
   * Outside a transaction, a query reads (and writes) committed data only: while a batch is
   * open, the lease steps aside until the batch's COMMIT at the end of this turn, then queues
   * for the connection again. (Committing at once instead would end every batch at the next
   * request's API key lookup.)
   */
  async committed(lease: Lease): Promise<void> {
    while (this.#batch && !lease.inTransaction) {
      const { done } = this.#batch;
      this.#handOver();
      await done.catch(() => undefined);
      await this.#take();
    }
  }

  #execute<R>(query: CompiledQuery): QueryResult<R> {
    const stmt = this.statements.prepare(query.sql);
    if (stmt.reader) return { rows: stmt.all(query.parameters) as R[] };
    const { changes, lastInsertRowid } = stmt.run(query.parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  #exec(sql: string): void {
    this.statements.prepare(sql).run([]);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
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
    if (batch.members >= MAX_BATCH) this.commitBatch();
    // Others join the batch while this transaction waits for its COMMIT.
    this.#release(lease);
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
    const batch: Batch = { members: 0, done, settle };
    this.#batch = batch;
    // At the end of this turn, behind whoever holds the connection then: transactions that
    // queued for it before that join the batch.
    nextTurn(() => {
      const turn = this.#take();
      if (turn) void turn.then(() => this.#flush(batch));
      else this.#flush(batch);
    });
  }

  #flush(batch: Batch): void {
    try {
      if (this.#batch === batch) this.commitBatch();
    } finally {
      this.#handOver();
    }
  }

  /** Commits the open batch; called only by whoever holds the connection. */
  commitBatch(): void {
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
    await this.#take();
    try {
      this.commitBatch();
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
