/// <reference lib="es2024.string" />
import { CompiledQuery, sql, type Insertable } from 'kysely';
import type { Database, Db, Executor } from './database.ts';
import { nameStatement } from './named-statements.ts';

/*
 * PostgreSQL: group commit for creates. The rows of every create that arrives in one turn of the
 * event loop (a document, its signers and fields, its audit entry, its event) go to the database
 * as one statement, together with the webhook deliveries the events fan out to:
 *
 *   with documents_ as (insert into documents (id, org_id, …)
 *                       select (r->>0)::text, (r->>1)::text, … from jsonb_array_elements($1::jsonb) r),
 *        …
 *   insert into webhook_deliveries (…) select … from events_ join webhooks …
 *
 * Each table's rows are one JSON parameter (an array of rows, each an array of its values in
 * column order), so the statement's text is the same whatever the number of creates, signers or
 * fields: it is named (planned once per connection). One statement is one transaction: a create
 * answers only once its rows are committed, and one commit (one WAL flush, one notification of the
 * change feed) serves the whole batch. Under load, one commit per create was the limit: the change
 * feed's notifications serialize commits (PostgreSQL holds a database-wide lock from a notifying
 * transaction's commit until its WAL is flushed), and each statement cost PostgreSQL its own
 * executor start, commit and flush.
 *
 * A failing batch is retried one create at a time, so one create's failure (a webhook whose stored
 * event list is broken, an organization deleted meanwhile) fails that create alone. Nothing else
 * can differ: the statement checks only what each create's own rows reference.
 */

/** The tables of a batch, in the order they are inserted (constraints are checked at the end anyway). */
const TABLES = ['documents', 'signers', 'fields', 'audit_logs', 'events'] as const;
type BatchTable = (typeof TABLES)[number];

/** The rows of one create; a row may leave out a column that has no default (it gets null, as in an INSERT). */
export type BatchRows = { [T in BatchTable]?: Insertable<Database[T]>[] };

/** Creates sent as one statement, at most. */
const MAX_BATCH = 64;
/** Batch statements running at once; more creates wait for one of them to finish. */
const MAX_IN_FLIGHT = 2;

interface Statement {
  sql: string;
  /** Per table, its columns in the order of the JSON arrays, and those with a default (which a row must not leave out). */
  columns: Record<BatchTable, string[]>;
  known: Record<BatchTable, Set<string>>;
  withDefault: Record<BatchTable, string[]>;
}

interface Pending {
  rows: BatchRows;
  resolve(): void;
  reject(err: unknown): void;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function buildStatement(db: Executor, fanOut: string): Promise<Statement> {
  const { rows } = await sql<{
    table_name: string;
    column_name: string;
    type: string;
    has_default: boolean;
  }>`
    select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as type, a.atthasdef as has_default
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    where c.relnamespace = current_schema()::regnamespace and c.relname in (${sql.join([...TABLES])})
      and a.attnum > 0 and not a.attisdropped
    order by c.relname, a.attnum`.execute(db);
  const columns = {} as Statement['columns'];
  const known = {} as Statement['known'];
  const withDefault = {} as Statement['withDefault'];
  const ctes: string[] = [];
  for (const [i, table] of TABLES.entries()) {
    const cols = rows.filter((r) => r.table_name === table);
    if (cols.length === 0) throw new Error(`pg-insert-batch: no table ${table}`);
    columns[table] = cols.map((c) => c.column_name);
    known[table] = new Set(columns[table]);
    withDefault[table] = cols.filter((c) => c.has_default).map((c) => c.column_name);
    const returning = table === 'events' ? ' returning id, org_id, type, created_at' : '';
    // Rows as arrays, not objects: no column name repeated per row for PostgreSQL to parse and
    // match (json_populate_recordset built a hash table of every row's keys): 20% less of its CPU
    // per create, a third of the bytes for a document row.
    const values = cols.map((c, k) => `(r->>${k})::${c.type}`).join(', ');
    ctes.push(
      `${table}_ as (insert into ${quote(table)} (${columns[table].map(quote).join(', ')}) select ${values} from jsonb_array_elements($${i + 1}::jsonb) r${returning})`,
    );
  }
  // The deliveries of each event: the caller's statement over `events_` (modules/events/emit.ts).
  const text = `with ${ctes.join(',\n  ')}\n${fanOut}`;
  return { sql: nameStatement(text), columns, known, withDefault };
}

/**
 * The statement's parameters for `batch`: per table, its rows as one JSON array of arrays, each
 * row's values in column order. JSON.stringify is native: per create it cost a tenth of what the
 * driver spent quoting one array per column. A key left undefined gets null, as in an INSERT that
 * does not name its column; a column with a default may not be left out (the statement cannot
 * apply it).
 */
function parameters(statement: Statement, batch: BatchRows[]): string[] {
  const out: string[] = [];
  for (const table of TABLES) {
    const cols = statement.columns[table];
    const known = statement.known[table];
    const all: unknown[][] = [];
    for (const rows of batch) {
      for (const row of (rows[table] ?? []) as Record<string, unknown>[]) {
        for (const key in row) {
          if (row[key] !== undefined && !known.has(key))
            throw new Error(`insert into ${table}: no column ${key}`);
        }
        for (const col of statement.withDefault[table]) {
          if (row[col] === undefined)
            throw new Error(`insert into ${table}: no value for ${col}, which has a default`);
        }
        const values = new Array<unknown>(cols.length);
        for (let i = 0; i < cols.length; i++) values[i] = row[cols[i]];
        all.push(values);
      }
    }
    out.push(toJson(all));
  }
  return out;
}

/**
 * JSON that PostgreSQL takes. JSON.stringify writes a lone surrogate (a string cut in the middle
 * of a character, or sent as `"\udfff"`) as an escape PostgreSQL refuses; every other path stores
 * such a string as UTF-8, where it becomes U+FFFD, and so does this one. The check is cheap; the
 * rewrite runs only when such an escape (JSON.stringify writes them in lower case), or a
 * backslash before `ud`, is there.
 */
function toJson(rows: unknown[]): string {
  const json = JSON.stringify(rows);
  if (!json.includes('\\ud')) return json;
  return JSON.stringify(rows, (_key, value: unknown) =>
    typeof value === 'string' ? value.toWellFormed() : value,
  );
}

class InsertBatcher {
  private statement: Promise<Statement> | undefined;
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Statements sent and the creates they carried (metrics, tests). */
  readonly stats = { statements: 0, creates: 0, retriedAlone: 0 };

  constructor(
    private readonly db: Db,
    private readonly fanOut: string,
  ) {}

  insert(rows: BatchRows): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ rows, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || this.queue.length === 0) return;
    this.scheduled = true;
    // The end of this turn: every create whose request was read in it joins the batch.
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        this.inFlight++;
        void this.run(batch).finally(() => {
          this.inFlight--;
          this.schedule();
        });
      }
    });
  }

  private async run(batch: Pending[]): Promise<void> {
    try {
      await this.execute(batch.map((p) => p.rows));
      for (const p of batch) p.resolve();
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      // Nothing of the batch was written; each create on its own, so only the failing ones fail.
      this.stats.retriedAlone += batch.length;
      await Promise.all(
        batch.map((p) =>
          this.execute([p.rows]).then(
            () => p.resolve(),
            (e: unknown) => p.reject(e),
          ),
        ),
      );
    }
  }

  private execute(batch: BatchRows[]): Promise<void> {
    return this.executeOn(this.db, batch);
  }

  /** Runs one statement with the creates of `batch` on `executor` (the database, or a transaction of it). */
  async executeOn(executor: Executor, batch: BatchRows[]): Promise<void> {
    // Read on `executor`: a transaction holding a connection must not wait for a second one.
    this.statement ??= buildStatement(executor, this.fanOut).catch((err: unknown) => {
      this.statement = undefined;
      throw err;
    });
    const statement = await this.statement;
    const params = parameters(statement, batch);
    this.stats.statements++;
    this.stats.creates += batch.length;
    await executor.executeQuery(CompiledQuery.raw(statement.sql, params));
  }
}

const batchers = new WeakMap<Db, InsertBatcher>();

function batcherOf(db: Db, fanOut: string): InsertBatcher {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new InsertBatcher(db, fanOut);
    batchers.set(db, batcher);
  }
  return batcher;
}

/**
 * Inserts one create's rows (PostgreSQL) in a statement shared with the other creates of this turn
 * of the event loop, ending with `fanOut` (the same text on every call: the webhook deliveries of
 * the inserted events, read from the CTE `events_`); resolves once they are committed.
 */
export function insertBatched(db: Db, rows: BatchRows, fanOut: string): Promise<void> {
  return batcherOf(db, fanOut).insert(rows);
}

/**
 * Inserts the rows of several creates (PostgreSQL) as one statement inside the caller's
 * transaction `trx` of `db`, at once (no waiting for the turn to end): a bulk send's group of rows
 * is created and sent in one transaction.
 */
export function insertBatchedIn(
  db: Db,
  trx: Executor,
  batch: BatchRows[],
  fanOut: string,
): Promise<void> {
  return batcherOf(db, fanOut).executeOn(trx, batch);
}

/** How many statements carried how many creates so far, on `db`. */
export function batchStats(db: Db): Readonly<InsertBatcher['stats']> {
  return batchers.get(db)?.stats ?? { statements: 0, creates: 0, retriedAlone: 0 };
}
