import type { DocumentRow, Executor } from '../../db/database.ts';
import { notFound } from '../../http/errors.ts';

/**
 * The one document lock: the live documents among `ids` (of the organization when `orgId` is
 * given), locked until the transaction ends. A same-value update takes the row lock on
 * PostgreSQL (SQLite has a single writer anyway), so whatever changes a document runs one
 * after another: concurrent edits of one document's signers or fields cannot race past the
 * per-document limits, the unique signer order or the draft-only rule (an edit that waits
 * behind a send then sees the document pending and is refused), and of two signers completing
 * at once exactly one sees "everyone has signed" and queues the signed PDF.
 */
async function lockDocuments(
  trx: Executor,
  ids: readonly string[],
  orgId?: string,
): Promise<DocumentRow[]> {
  let query = trx
    .updateTable('documents')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null);
  if (orgId !== undefined) query = query.where('org_id', '=', orgId);
  return query.returningAll().execute();
}

/**
 * `lockDocuments` for one document; undefined when there is no such live document. Without
 * `orgId` there is no organization check: for workers and token-authenticated routes.
 */
export async function lockDocument(
  trx: Executor,
  id: string,
  orgId?: string,
): Promise<DocumentRow | undefined> {
  return (await lockDocuments(trx, [id], orgId))[0];
}

/** The organization's live documents locked, in the order of `ids`; 404 unless every one is there. */
export async function lockDocumentsForEdit(
  trx: Executor,
  orgId: string,
  ids: readonly string[],
): Promise<DocumentRow[]> {
  const byId = new Map((await lockDocuments(trx, ids, orgId)).map((row) => [row.id, row]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw notFound('Document');
    return row;
  });
}

/** `lockDocumentsForEdit` for one document. */
export async function lockDocumentForEdit(
  trx: Executor,
  orgId: string,
  id: string,
): Promise<DocumentRow> {
  return (await lockDocumentsForEdit(trx, orgId, [id]))[0];
}
