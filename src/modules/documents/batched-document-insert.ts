import type { Dialect } from '../../db/create-db.ts';
import type { Db, Executor } from '../../db/database.ts';
import { insertBatched, insertBatchedIn, type BatchRows } from '../../db/pg-insert-batch.ts';
import { DELIVERIES_OF_EVENTS_PG } from '../events/emit.ts';

/**
 * A new document's rows (with its audit entry and event) in one statement shared with the other
 * creates of this turn, on PostgreSQL (db/pg-insert-batch.ts). False on SQLite, where the caller
 * inserts them in its own transaction.
 */
export async function insertDocumentBatched(
  db: Db,
  dialect: Dialect,
  rows: BatchRows,
): Promise<boolean> {
  if (dialect !== 'postgres') return false;
  await insertBatched(db, rows, DELIVERIES_OF_EVENTS_PG);
  return true;
}

/**
 * Several new documents' rows as one statement inside `trx` (a transaction of `db`), on
 * PostgreSQL. False on SQLite, where the caller inserts them one by one.
 */
export async function insertDocumentsBatchedIn(
  db: Db,
  trx: Executor,
  dialect: Dialect,
  creates: BatchRows[],
): Promise<boolean> {
  if (dialect !== 'postgres') return false;
  await insertBatchedIn(db, trx, creates, DELIVERIES_OF_EVENTS_PG);
  return true;
}
