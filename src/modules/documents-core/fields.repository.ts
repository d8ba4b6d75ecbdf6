import type { Insertable, Updateable } from 'kysely';
import type { Executor, FieldRow, FieldsTable } from '../../db/database.ts';
import { paginate, type PageRequest } from '../../http/pagination.ts';
import { groupByDocument } from './signers.repository.ts';

export async function listFields(db: Executor, documentId: string): Promise<FieldRow[]> {
  return db
    .selectFrom('fields')
    .selectAll()
    .where('document_id', '=', documentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** listFields of several documents in one read: each document's fields, in the same order. */
export async function listFieldsOfDocuments(
  db: Executor,
  documentIds: readonly string[],
): Promise<Map<string, FieldRow[]>> {
  const rows = await db
    .selectFrom('fields')
    .selectAll()
    .where('document_id', 'in', documentIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return groupByDocument(documentIds, rows);
}

/** One page of a document's fields, oldest first (the order of the document detail). */
export async function listFieldsPage(db: Executor, documentId: string, page: PageRequest) {
  return paginate(db.selectFrom('fields').selectAll().where('document_id', '=', documentId), {
    ...page,
    direction: 'asc',
  });
}

export async function countFields(db: Executor, documentId: string): Promise<number> {
  const row = await db
    .selectFrom('fields')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('document_id', '=', documentId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Moves the fields assigned to one signer order to another (the signer changed its order). */
export async function reassignFields(
  db: Executor,
  documentId: string,
  from: number,
  to: number,
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('fields')
    .set({ assigned_to: to, updated_at: now })
    .where('document_id', '=', documentId)
    .where('assigned_to', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function findField(
  db: Executor,
  documentId: string,
  fieldId: string,
): Promise<FieldRow | undefined> {
  return db
    .selectFrom('fields')
    .selectAll()
    .where('document_id', '=', documentId)
    .where('id', '=', fieldId)
    .executeTakeFirst();
}

export async function insertFields(db: Executor, rows: Insertable<FieldsTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('fields').values(rows).execute();
}

export async function updateField(
  db: Executor,
  fieldId: string,
  changes: Updateable<FieldsTable>,
): Promise<void> {
  await db.updateTable('fields').set(changes).where('id', '=', fieldId).execute();
}

export async function deleteField(db: Executor, fieldId: string): Promise<void> {
  await db.deleteFrom('fields').where('id', '=', fieldId).execute();
}
