import { decodeValue, type ColumnType, type Encoded } from './row-codec.ts';
import { quote, type ColumnInfo, type SqlConn, type TableInfo } from './sql-conn.ts';

/**
 * The rows of `table` a page at a time, in storage order, holding one page at a time. Inside the
 * snapshot's transaction, the pages together are the table as it was when the snapshot began.
 *
 * Storage order, not key order: a table read through its primary key index visits its rows in
 * the index's order, which for a text key is random across the table's pages. At 1,000,000
 * documents (744 MB) that made a SQLite backup read pages one at a time from all over the file,
 * 7.6 MB/s; in storage order the same pages are read once each, in sequence.
 * - SQLite: keyset pages on the rowid (each page one range scan of the table's own b-tree);
 *   a WITHOUT ROWID table is stored in its primary key's order, so its key is used.
 * - PostgreSQL: a cursor over a plain scan of the table, fetched a page at a time.
 */
export async function* readPages(
  conn: SqlConn,
  table: TableInfo,
  pageRows: number,
): AsyncGenerator<unknown[][]> {
  const select = `select ${table.columns.map((c) => quote(c.name)).join(', ')} from ${quote(table.name)}`;
  if (conn.dialect === 'postgres') {
    yield* cursorPages(conn, select, pageRows);
    return;
  }
  const width = table.columns.length;
  const byRowid = !table.withoutRowid;
  const keys = byRowid ? ['rowid'] : table.primaryKey.map(quote);
  const keyAt = byRowid
    ? [width]
    : table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  const selectKeys = byRowid ? `${select.replace(' from ', ', rowid from ')}` : select;
  const order = `order by ${keys.join(', ')} limit ${pageRows}`;
  let last: unknown[] | null = null;
  for (;;) {
    const after = last
      ? `where (${keys.join(', ')}) > (${last.map((_, i) => conn.param(i + 1)).join(', ')})`
      : '';
    const rows = await conn.rows(`${selectKeys} ${after} ${order}`, last ?? []);
    if (rows.length === 0) return;
    const tail = rows[rows.length - 1];
    last = keyAt.map((i) => tail[i]);
    yield byRowid ? rows.map((r) => r.slice(0, width)) : rows;
    if (rows.length < pageRows) return;
  }
}

/** The rows of `select` through a cursor of the snapshot's transaction, `pageRows` at a time. */
async function* cursorPages(
  conn: SqlConn,
  select: string,
  pageRows: number,
): AsyncGenerator<unknown[][]> {
  await conn.run(`declare backup_pages no scroll cursor for ${select}`);
  try {
    for (;;) {
      const rows = await conn.rows(`fetch forward ${pageRows} from backup_pages`);
      if (rows.length > 0) yield rows;
      if (rows.length < pageRows) return;
    }
  } finally {
    await conn.run('close backup_pages');
  }
}

/** Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535. */
const MAX_PARAMS = 30_000;
const MAX_BATCH_ROWS = 500;
/** A batch is sent once its values pass this size, whatever its row count (rows with large texts). */
const MAX_BATCH_CHARS = 4 * 1024 * 1024;

/**
 * Inserts rows of one table in multi-row statements. `source` are the columns as the backup
 * wrote them; each must exist in the target, whose types decide how a value is bound. Columns in
 * `deferred` (a table referencing itself) are inserted as null and set by `setDeferred` once
 * every row exists, whatever order the rows come in.
 */
export class TableLoader {
  private batch: unknown[] = [];
  private rows = 0;
  private chars = 0;
  private readonly perBatch: number;
  private readonly types: { source: ColumnType; target: ColumnType }[];
  private readonly deferredAt: Set<number>;
  private readonly statements = new Map<number, string>();

  constructor(
    private readonly conn: SqlConn,
    private readonly table: TableInfo,
    private readonly source: readonly ColumnInfo[],
    deferred: ReadonlySet<string> = new Set(),
  ) {
    const targetType = new Map(table.columns.map((c) => [c.name, c.type]));
    this.types = source.map((c) => {
      const target = targetType.get(c.name);
      if (!target)
        throw new Error(`column ${table.name}.${c.name} of the backup does not exist here`);
      return { source: c.type, target };
    });
    this.deferredAt = new Set(source.flatMap((c, i) => (deferred.has(c.name) ? [i] : [])));
    this.perBatch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(MAX_PARAMS / source.length)));
  }

  /** Binds one row (its values in the backup's column order); sends the batch when full. */
  async add(row: readonly Encoded[]): Promise<void> {
    if (row.length !== this.source.length)
      throw new Error(
        `a row of ${this.table.name} has ${row.length} values, not ${this.source.length}`,
      );
    for (let i = 0; i < row.length; i++) {
      const value = this.deferredAt.has(i) ? null : row[i];
      if (typeof value === 'string') this.chars += value.length;
      this.batch.push(
        decodeValue(this.types[i].source, this.types[i].target, this.conn.dialect, value),
      );
    }
    this.rows++;
    if (this.rows >= this.perBatch || this.chars >= MAX_BATCH_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.rows === 0) return;
    await this.conn.run(this.statement(this.rows), this.batch);
    this.batch = [];
    this.rows = 0;
    this.chars = 0;
  }

  private statement(rows: number): string {
    let text = this.statements.get(rows);
    if (!text) {
      const width = this.source.length;
      const tuples = Array.from(
        { length: rows },
        (_, r) =>
          `(${Array.from({ length: width }, (_, c) => this.conn.param(r * width + c + 1)).join(', ')})`,
      );
      text = `insert into ${quote(this.table.name)} (${this.source.map((c) => quote(c.name)).join(', ')}) values ${tuples.join(', ')}`;
      this.statements.set(rows, text);
    }
    return text;
  }

  /** The second pass for a deferred column: sets it on the row of this primary key. */
  async setDeferred(row: readonly Encoded[]): Promise<void> {
    const pk = this.table.primaryKey;
    for (const i of this.deferredAt) {
      if (row[i] === null) continue;
      const keyValues = pk.map((k) => {
        const at = this.source.findIndex((c) => c.name === k);
        return decodeValue(
          this.types[at].source,
          this.types[at].target,
          this.conn.dialect,
          row[at],
        );
      });
      const where = pk.map((k, n) => `${quote(k)} = ${this.conn.param(n + 2)}`).join(' and ');
      await this.conn.run(
        `update ${quote(this.table.name)} set ${quote(this.source[i].name)} = ${this.conn.param(1)} where ${where}`,
        [
          decodeValue(this.types[i].source, this.types[i].target, this.conn.dialect, row[i]),
          ...keyValues,
        ],
      );
    }
  }
}

/**
 * Tables in an order where every table comes after those it references, and the columns that
 * reference their own table (set in a second pass). A cycle between tables cannot be ordered;
 * Signet's schema has none.
 */
export function loadOrder(tables: readonly TableInfo[]): {
  order: TableInfo[];
  deferred: Map<string, Set<string>>;
} {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const deferred = new Map<string, Set<string>>();
  const order: TableInfo[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: TableInfo, path: string[]) => {
    if (state.get(t.name) === 'done') return;
    if (state.get(t.name) === 'visiting')
      throw new Error(`tables reference each other in a cycle: ${[...path, t.name].join(' → ')}`);
    state.set(t.name, 'visiting');
    for (const ref of t.references) {
      if (ref.table === t.name) {
        if (!ref.nullable)
          throw new Error(`${t.name}.${ref.column} references its own table and cannot be null`);
        deferred.set(t.name, (deferred.get(t.name) ?? new Set()).add(ref.column));
        continue;
      }
      const parent = byName.get(ref.table);
      if (parent) visit(parent, [...path, t.name]);
    }
    state.set(t.name, 'done');
    order.push(t);
  };
  for (const t of tables) visit(t, []);
  return { order, deferred };
}
