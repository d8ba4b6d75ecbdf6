import { RawNode, createQueryId, type Compilable, type QueryResult } from 'kysely';
import type { Database, Executor } from './database.ts';
import type { Insertable } from 'kysely';
import { nameStatement } from './named-statements.ts';

/*
 * Queries on the hottest paths, built with the query builder once per dialect instead of per call.
 *
 * Building and compiling a query costs more than SQLite takes to run it: a 30-column insert spent
 * about three times as long in the builder as in the database (CPU profile of
 * `POST /api/v1/documents` under load). A prepared query is written with the builder as usual,
 * with named slots where the call's values go; it is compiled on first use for the executor's
 * dialect, and each call only puts its values in the slots' places. The SQL text is then the
 * same on every call, which also lets the SQLite statement cache (create-db.ts) reuse its
 * prepared statement.
 */

class Slot {
  constructor(readonly name: string) {}
}

type Part = { slot: string } | { value: unknown };

interface Compiled {
  sql: string;
  /** The operation node of the SQL text, made once (CompiledQuery.raw makes and freezes one per call). */
  node: RawNode;
  parts: Part[];
}

const slotProxy = new Proxy({}, { get: (_target, name) => new Slot(String(name)) });

/**
 * The values `build` reads: a slot for each name, standing in for a value of any column type (the
 * one place where a placeholder is typed as the value it holds the place of). Without `keys`, any
 * name read is a slot; with them, the object has exactly those keys, for a builder that lists
 * them (an insert's values).
 */
function slotsFor<A>(keys: readonly (keyof A & string)[] | undefined): A {
  return (keys ? Object.fromEntries(keys.map((k) => [k, new Slot(k)])) : slotProxy) as A;
}

interface Prepared<A, R> {
  execute(db: Executor, args: A): Promise<QueryResult<R>>;
}

/**
 * A query built once per dialect by `build`, which reads the call's values from `slots`; `keys`
 * when `build` enumerates the slots rather than reading them by name.
 */
export function prepared<A extends Record<string, unknown>, R = unknown>(
  build: (db: Executor, slots: A) => Compilable<unknown>,
  keys?: readonly (keyof A & string)[],
): Prepared<A, R> {
  // Keyed by the dialect's adapter: the database and its transactions share it.
  const byAdapter = new WeakMap<object, Compiled>();
  const compile = (db: Executor): Compiled => {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      const query = build(db, slotsFor<A>(keys)).compile();
      const sql = nameStatement(query.sql);
      compiled = {
        sql,
        node: RawNode.createWithSql(sql),
        parts: query.parameters.map((p) => (p instanceof Slot ? { slot: p.name } : { value: p })),
      };
      byAdapter.set(adapter, compiled);
    }
    return compiled;
  };
  return {
    execute(db, args) {
      const { sql, node, parts } = compile(db);
      const parameters = new Array<unknown>(parts.length);
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i];
        if ('slot' in part) {
          const value = args[part.slot];
          if (value === undefined) throw new Error(`prepared query: no value for ${part.slot}`);
          parameters[i] = value;
        } else {
          parameters[i] = part.value;
        }
      }
      return db.executeQuery<R>({ sql, parameters, query: node, queryId: createQueryId() });
    },
  };
}

/** Every column of a table's row, checked by the compiler: a column left out is an error. */
export function allColumns<Row>() {
  return <const L extends readonly (keyof Row & string)[]>(
    list: Exclude<keyof Row, L[number]> extends never ? L : never,
  ): L => list;
}

/**
 * An insert of one row with exactly the given columns. A row with another set of columns is
 * refused rather than stored partly.
 */
export function preparedInsert<T extends keyof Database & string>(
  table: T,
  columns: readonly (keyof Insertable<Database[T]> & string)[],
) {
  const query = prepared<Insertable<Database[T]>>(
    (db, slots) => db.insertInto(table).values(slots),
    columns,
  );
  return async (db: Executor, row: Insertable<Database[T]>): Promise<void> => {
    const keys = Object.keys(row);
    if (keys.length !== columns.length) {
      throw new Error(
        `insert into ${table}: expected the columns ${columns.join(', ')}; got ${keys.join(', ')}`,
      );
    }
    await query.execute(db, row);
  };
}
