import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  IdentifierNode,
  RawNode,
  SelectQueryNode,
  SqliteDialect,
  createQueryId,
  type QueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { SqliteAvailability } from './sqlite-availability.ts';

/*
 * SQLite with two connections to one file in WAL mode: one that writes (and reads inside a
 * transaction), one opened read-only for every other read. Kysely's own SQLite driver holds its one
 * connection for the whole of a transaction, across the awaits between its statements: every read
 * of every other request waited behind each create until its commit. Here a transaction holds the
 * write connection only; a read outside it runs at once on the reader, which sees every commit
 * made before it starts (each statement is its own read transaction), so a request reads what it
 * wrote. Inside a transaction, reads stay on the writer and see the transaction's own rows.
 * Without a reader (`:memory:`, or PERF_OFF=read-connection) everything runs on the writer.
 */

export interface Statement {
  reader: boolean;
  /** A select that writes nothing: it may run on the read-only connection. */
  selects: boolean;
  all(params: unknown[]): unknown[];
  run(params: unknown[]): SQLite.RunResult;
  iterate(params: unknown[]): IterableIterator<unknown>;
}

/** One connection and its prepared statements, kept by SQL text. */
export interface StatementSource {
  sqlite: SQLite.Database;
  prepare(sqlText: string): Statement;
  close(): void;
}

/**
 * Kysely prepares every query anew; preparing costs more than running a point lookup. Queries
 * are built from a fixed set of shapes, so prepared statements are kept by their SQL text
 * (bounded, least recently used dropped first). Reuse is safe: statements run synchronously.
 * Each statement also makes its string parameters well-formed (wellFormed).
 */
export function withStatementCache(
  sqlite: SQLite.Database,
  /** The writer's; the reader has none (it writes nothing whose success would end a degraded spell). */
  availability: Pick<SqliteAvailability, 'run'> = { run: (_writes, fn) => fn() },
  max = 1000,
): StatementSource {
  const cache = new Map<string, Statement>();
  return {
    sqlite,
    close: () => sqlite.close(),
    prepare(sqlText: string): Statement {
      let entry = cache.get(sqlText);
      if (entry) {
        cache.delete(sqlText);
      } else {
        const stmt = sqlite.prepare(sqlText);
        entry = {
          reader: stmt.reader,
          // Not a pragma: one that sets a value answers a row and counts as read-only too.
          selects: stmt.reader && stmt.readonly && /^\s*(select|with)\s/i.test(sqlText),
          all: (params: unknown[]) =>
            availability.run(!stmt.readonly, () => stmt.all(wellFormed(params))),
          run: (params: unknown[]) =>
            availability.run(!stmt.readonly, () => stmt.run(wellFormed(params))),
          iterate: (params: unknown[]) => stmt.iterate(wellFormed(params)),
        };
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

/** Kysely's SQLite dialect on the two connections. */
export class TwoConnectionSqliteDialect extends SqliteDialect {
  constructor(
    private readonly writer: StatementSource,
    private readonly reader: StatementSource | undefined,
  ) {
    super({ database: writer });
  }

  override createDriver(): Driver {
    return new TwoConnectionDriver(this.writer, this.reader);
  }
}

/** First come, first served: who waits for the write connection gets it in order. */
class WriteLock {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  async take(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

/** A savepoint statement, as Kysely builds it for its own drivers. */
const savepointCommand = (command: string, name: string) =>
  RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);

class TwoConnectionDriver implements Driver {
  private readonly lock = new WriteLock();

  constructor(
    private readonly writer: StatementSource,
    private readonly reader: StatementSource | undefined,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.writer, this.reader, this.lock);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  // Savepoints as Kysely's own SQLite driver writes them (`trx.savepoint()`).
  async savepoint(c: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await c.executeQuery(compile(savepointCommand('savepoint', name), createQueryId()));
  }

  async rollbackToSavepoint(
    c: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await c.executeQuery(compile(savepointCommand('rollback to', name), createQueryId()));
  }

  async releaseSavepoint(
    c: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await c.executeQuery(compile(savepointCommand('release', name), createQueryId()));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as RoutedConnection).release();
  }

  async destroy(): Promise<void> {
    this.reader?.close();
    this.writer.close();
  }
}

/**
 * What Kysely holds between acquiring and releasing a connection: a single statement, a
 * transaction, or `db.connection()`. A read-only statement while it holds no write lock runs on
 * the reader; any other takes the write lock first, and keeps it while the writer is in a
 * transaction (`begin` … `commit`, Kysely's or written out), so nobody else's statement lands in it.
 */
class RoutedConnection implements DatabaseConnection {
  private holding = false;

  constructor(
    private readonly writer: StatementSource,
    private readonly reader: StatementSource | undefined,
    private readonly lock: WriteLock,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = query;
    if (!this.holding && this.reader) {
      const stmt = this.writer.prepare(sql);
      if (stmt.selects)
        return { rows: this.reader.prepare(sql).all(parameters as unknown[]) as R[] };
    }
    if (!this.holding) {
      await this.lock.take();
      this.holding = true;
    }
    try {
      return run<R>(this.writer.prepare(sql), parameters as unknown[]);
    } finally {
      this.settle();
    }
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query))
      throw new Error('Sqlite driver only supports streaming of select queries');
    // An iterating statement keeps its connection busy: the writer, held until the last row.
    const took = !this.holding;
    if (took) {
      await this.lock.take();
      this.holding = true;
    }
    try {
      for (const row of this.writer.prepare(query.sql).iterate(query.parameters as unknown[]))
        yield { rows: [row as R] };
    } finally {
      if (took) this.settle();
    }
  }

  /** Lets go of the write lock unless the writer is inside a transaction. */
  private settle(): void {
    if (this.holding && !this.writer.sqlite.inTransaction) {
      this.holding = false;
      this.lock.give();
    }
  }

  release(): void {
    if (!this.holding) return;
    // A transaction left open by its holder would block every write after it.
    if (this.writer.sqlite.inTransaction) this.writer.sqlite.exec('rollback');
    this.holding = false;
    this.lock.give();
  }
}

function run<R>(stmt: Statement, parameters: unknown[]): QueryResult<R> {
  if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return {
    numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
    insertId:
      lastInsertRowid !== undefined && lastInsertRowid !== null
        ? BigInt(lastInsertRowid)
        : undefined,
    rows: [],
  };
}
