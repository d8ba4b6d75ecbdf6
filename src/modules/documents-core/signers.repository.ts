import type { Executor, SignerRow, SignerUpdate } from '../../db/database.ts';
import type { Insertable } from 'kysely';
import type { SignersTable } from '../../db/database.ts';
import { paginate, type PageRequest } from '../../http/pagination.ts';

export async function listSigners(db: Executor, documentId: string): Promise<SignerRow[]> {
  return db
    .selectFrom('signers')
    .selectAll()
    .where('document_id', '=', documentId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** listSigners of several documents in one read: each document's signers, in the same order. */
export async function listSignersOfDocuments(
  db: Executor,
  documentIds: readonly string[],
): Promise<Map<string, SignerRow[]>> {
  const rows = await db
    .selectFrom('signers')
    .selectAll()
    .where('document_id', 'in', documentIds)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return groupByDocument(documentIds, rows);
}

/** Rows grouped by their `document_id`, every document of `documentIds` present (maybe with none); each group keeps the rows' order. */
export function groupByDocument<R extends { document_id: string }>(
  documentIds: readonly string[],
  rows: R[],
): Map<string, R[]> {
  const groups = new Map<string, R[]>(documentIds.map((id) => [id, []]));
  for (const row of rows) groups.get(row.document_id)?.push(row);
  return groups;
}

/**
 * One page of a document's signers in signing order. The cursor carries the position as text;
 * both databases compare it with the integer column as a number (SQLite applies the column's
 * affinity, PostgreSQL types the parameter from the column), so 10 sorts after 9.
 */
export async function listSignersPage(db: Executor, documentId: string, page: PageRequest) {
  return paginate(db.selectFrom('signers').selectAll().where('document_id', '=', documentId), {
    ...page,
    direction: 'asc',
    sortColumn: 'position',
  });
}

/** The signer holding `position` on the document, if any. */
export async function findSignerAtOrder(
  db: Executor,
  documentId: string,
  position: number,
): Promise<SignerRow | undefined> {
  return db
    .selectFrom('signers')
    .selectAll()
    .where('document_id', '=', documentId)
    .where('position', '=', position)
    .executeTakeFirst();
}

export async function findSigner(
  db: Executor,
  documentId: string,
  signerId: string,
): Promise<SignerRow | undefined> {
  return db
    .selectFrom('signers')
    .selectAll()
    .where('document_id', '=', documentId)
    .where('id', '=', signerId)
    .executeTakeFirst();
}

export async function insertSigners(db: Executor, rows: Insertable<SignersTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('signers').values(rows).execute();
}

export async function updateSigner(
  db: Executor,
  signerId: string,
  changes: SignerUpdate,
): Promise<void> {
  await db.updateTable('signers').set(changes).where('id', '=', signerId).execute();
}

export async function deleteSigner(db: Executor, signerId: string): Promise<void> {
  await db.deleteFrom('signers').where('id', '=', signerId).execute();
}
