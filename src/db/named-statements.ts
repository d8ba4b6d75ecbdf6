import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool } from 'kysely';
import type { QueryState } from './pg-change-feed.ts';

/*
 * PostgreSQL: the hottest statements run as named (server-side prepared) statements.
 *
 * An unnamed statement is parsed and planned on every execution; the document detail's plan alone
 * took 0.85 ms against 0.2 ms of execution (EXPLAIN ANALYZE on 20,000 documents), and naming it
 * cut a round trip from 514 µs to 196 µs (the API key lookup: 121 → 60 µs). The driver prepares
 * a named statement once per connection and afterwards sends only its name and values.
 *
 * Only statements marked by `nameStatement` are named: their texts come from a fixed set of query
 * shapes (db/prepared.ts, the document detail, list pages), so each connection holds a bounded
 * number. The mark is a comment at the end of the text (both databases ignore it, and the change
 * feed's tests of a statement's first word still see it), so the text itself says how it is to
 * run: there is no registry shared by the apps of one process. Each pool keeps the names it has
 * derived (the text's hash) and drops them when it is closed with its app.
 * A connection pooler between Signet and PostgreSQL must keep prepared statements per client
 * (PgBouncer does from 1.21 with `max_prepared_statements`; in its transaction mode before that
 * release, named statements fail).
 */

const MARK = '\n/* named */';

/** `sqlText` marked to run as a named statement on PostgreSQL. */
export function nameStatement(sqlText: string): string {
  return sqlText.endsWith(MARK) ? sqlText : sqlText + MARK;
}

/**
 * A pool's statement names, derived from the marked texts it has run. The shapes are few; the
 * bound only guards against a caller that marks texts it builds per request.
 */
class StatementNames {
  private readonly names = new Map<string, string>();

  nameOf(text: string): string | undefined {
    if (!text.endsWith(MARK)) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < 1_000) {
      name = `signet_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/** Told of every query a client has finished, before its caller goes on (pg-change-feed.ts). */
interface QueryObserver {
  queryDone(text: string, state: QueryState, rowCount?: number | null): void;
  released(state: QueryState): void;
}

/**
 * A pool client whose marked statements go out by name. Its `query` has the driver's own
 * overloads (text and values, or a cursor), which is the shape Kysely's pool client takes.
 */
class NamingClient {
  private readonly state: QueryState = { keys: false };

  constructor(
    private readonly client: pg.PoolClient,
    private readonly observer: QueryObserver | undefined,
    private readonly names: StatementNames | undefined,
  ) {}

  query<T extends pg.Submittable>(cursor: T): T;
  query<R extends pg.QueryResultRow>(
    text: string,
    values?: ReadonlyArray<unknown>,
  ): Promise<pg.QueryResult<R>>;
  query<R extends pg.QueryResultRow>(
    textOrCursor: string | pg.Submittable,
    values?: ReadonlyArray<unknown>,
  ): Promise<pg.QueryResult<R>> | pg.Submittable {
    const { client, observer, state } = this;
    if (typeof textOrCursor !== 'string') {
      // A cursor (streamed rows) carries its text; Kysely streams only selects.
      const cursor = client.query(textOrCursor);
      observer?.queryDone('text' in cursor ? String(cursor.text) : '', state);
      return cursor;
    }
    const name = this.names?.nameOf(textOrCursor);
    const params = values === undefined ? undefined : [...values];
    const result = name
      ? client.query<R>({ name, text: textOrCursor, values: params })
      : client.query<R>(textOrCursor, params);
    if (!observer) return result;
    return result.then(
      (res) => {
        observer.queryDone(textOrCursor, state, res.rowCount);
        return res;
      },
      (err: unknown) => {
        observer.queryDone(textOrCursor, state);
        throw err;
      },
    );
  }

  release(): void {
    this.observer?.released(this.state);
    this.client.release();
  }
}

/** The pool as Kysely sees it: clients whose marked statements go out by name. */
export function withNamedStatements(
  pool: pg.Pool,
  observer?: QueryObserver,
  naming = true,
): PostgresPool {
  const names = naming ? new StatementNames() : undefined;
  return {
    connect: async () => new NamingClient(await pool.connect(), observer, names),
    end: () => pool.end(),
  };
}
