import { sql, type Insertable } from 'kysely';
import type {
  BulkSendRow,
  BulkSendRowsTable,
  BulkSendsTable,
  BulkSendStatus,
  Executor,
} from '../../db/database.ts';
import { paginate, type PageRequest } from '../../http/pagination.ts';
import type { BulkSendT } from './bulk-sends.schemas.ts';

/** Rows per INSERT statement: well under both databases' bound-parameter limits. */
const INSERT_CHUNK = 1000;

export async function insertBulkSend(
  trx: Executor,
  row: Insertable<BulkSendsTable>,
  rows: Insertable<BulkSendRowsTable>[],
): Promise<void> {
  await trx.insertInto('bulk_sends').values(row).execute();
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx
      .insertInto('bulk_send_rows')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
}

export async function findBulkSend(
  db: Executor,
  orgId: string,
  id: string,
): Promise<BulkSendRow | undefined> {
  return db
    .selectFrom('bulk_sends')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

export async function findBulkSendById(db: Executor, id: string): Promise<BulkSendRow | undefined> {
  return db.selectFrom('bulk_sends').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listBulkSends(
  db: Executor,
  orgId: string,
  filter: { status?: BulkSendStatus },
  page: PageRequest,
) {
  let q = db.selectFrom('bulk_sends').selectAll().where('org_id', '=', orgId);
  if (filter.status) q = q.where('status', '=', filter.status);
  return paginate(q, page);
}

/** The pending rows of positions [from, to), in order. */
export async function pendingRows(db: Executor, id: string, from: number, to: number) {
  return db
    .selectFrom('bulk_send_rows')
    .select(['position', 'data'])
    .where('bulk_send_id', '=', id)
    .where('position', '>=', from)
    .where('position', '<', to)
    .where('status', '=', 'pending')
    .orderBy('position')
    .execute();
}

/**
 * Takes pending rows, each for its document, inside the transaction that creates them, as one
 * update: true when this transaction has every one of them. Another runner holding one of them (an
 * expired lease, a second instance) waits on the row lock (PostgreSQL) or the write lock (SQLite)
 * and then finds it taken.
 */
export async function takeRowsForDocuments(
  trx: Executor,
  id: string,
  rows: { position: number; documentId: string }[],
  now: string,
): Promise<boolean> {
  const documentOf = sql<string>`case position ${sql.join(
    rows.map((r) => sql`when ${r.position} then ${r.documentId}`),
    sql` `,
  )} end`;
  const result = await trx
    .updateTable('bulk_send_rows')
    .set({ status: 'sent', document_id: documentOf, updated_at: now })
    .where('bulk_send_id', '=', id)
    .where(
      'position',
      'in',
      rows.map((r) => r.position),
    )
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === rows.length;
}

/** Marks a pending row failed with `error`: true when this transaction did (it then counts it). */
export async function failRow(
  trx: Executor,
  id: string,
  position: number,
  error: string,
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('bulk_send_rows')
    .set({ status: 'failed', error: error.slice(0, 1000), updated_at: now })
    .where('bulk_send_id', '=', id)
    .where('position', '=', position)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function toBulkSend(row: BulkSendRow): BulkSendT {
  return {
    id: row.id,
    name: row.name,
    templateId: row.template_id,
    status: row.status,
    total: row.total,
    sent: row.sent,
    failed: row.failed,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

/**
 * Deletes the rows (recipients, prefill values, row errors) of bulk sends that finished
 * (completed or cancelled) before `before`, at most `limit` bulk sends a call; returns how many
 * rows went. A finished bulk send never reads its rows again: its documents hold what they held,
 * and its counters stay on the bulk send.
 */
export async function purgeFinishedRows(
  db: Executor,
  before: string,
  limit: number,
): Promise<number> {
  const finished = await db
    .selectFrom('bulk_sends')
    .select('id')
    .where('status', 'in', ['completed', 'cancelled'])
    .where('updated_at', '<', before)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('bulk_send_rows')
          .select('position')
          .whereRef('bulk_send_rows.bulk_send_id', '=', 'bulk_sends.id'),
      ),
    )
    .limit(limit)
    .execute();
  if (finished.length === 0) return 0;
  const result = await db
    .deleteFrom('bulk_send_rows')
    .where(
      'bulk_send_id',
      'in',
      finished.map((b) => b.id),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
