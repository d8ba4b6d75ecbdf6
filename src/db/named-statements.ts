import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type { QueryState } from './pg-change-feed.ts';

/*
 * PostgreSQL: the hottest statements run as named (server-side prepared) statements.
 *
 * An unnamed statement is parsed and planned on every execution; the document detail's plan alone
 * took 0.85 ms against 0.2 ms of execution (EXPLAIN ANALYZE on 20,000 documents), and naming it
 * cut a round trip from 514 µs to 196 µs (the API key lookup: 121 → 60 µs). The driver prepares
 * a named statement once per connection and afterwards sends only its name and values.
 *
 * Only statements registered here are named: their texts come from a fixed set of query shapes
 * (db/prepared.ts, the document detail, list pages), so each connection holds a bounded number.
 * A connection pooler between Signet and PostgreSQL must keep prepared statements per client
 * (PgBouncer does from 1.21 with `max_prepared_statements`; in its transaction mode before that
 * release, named statements fail).
 */

const names = new Map<string, string>();

/** Runs `sqlText` as a named statement on PostgreSQL from now on; returns the text. */
export function nameStatement(sqlText: string): string {
  if (!names.has(sqlText)) names.set(sqlText, `signet_${createHash('sha1').update(sqlText).digest('hex').slice(0, 20)}`);
  return sqlText;
}

/** Told of every query a client has finished, before its caller goes on (pg-change-feed.ts). */
export interface QueryObserver {
  queryDone(text: string, state: QueryState, rowCount?: number | null): void;
  released(state: QueryState): void;
}

/** The pool as Kysely sees it: clients whose registered statements go out by name. */
export function withNamedStatements(pool: pg.Pool, observer?: QueryObserver, naming = true): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const state: QueryState = { keys: false };
      const run = (textOrCursor: unknown, values?: ReadonlyArray<unknown>) => {
        if (typeof textOrCursor === 'string') {
          const name = naming ? names.get(textOrCursor) : undefined;
          if (name) return client.query({ name, text: textOrCursor, values: values as unknown[] });
          return client.query(textOrCursor, values as unknown[]);
        }
        return client.query(textOrCursor as never);
      };
      return {
        query(textOrCursor: unknown, values?: ReadonlyArray<unknown>) {
          const result = run(textOrCursor, values);
          if (!observer) return result;
          // A cursor (streamed rows) carries its text; Kysely streams only selects.
          const text = typeof textOrCursor === 'string' ? textOrCursor : String((textOrCursor as { text?: unknown }).text ?? '');
          if (typeof (result as Promise<unknown>)?.then !== 'function') {
            observer.queryDone(text, state);
            return result;
          }
          return (result as Promise<{ rowCount?: number | null }>).then(
            (res) => {
              observer.queryDone(text, state, res?.rowCount ?? null);
              return res;
            },
            (err: unknown) => {
              observer.queryDone(text, state);
              throw err;
            },
          );
        },
        release: () => {
          observer?.released(state);
          client.release();
        },
      } as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
