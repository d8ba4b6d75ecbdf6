import type { AppDeps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { findDocument } from '../documents/documents.repository.ts';
import { buildNewDocument, insertNewDocument } from '../documents/create-document.service.ts';
import { cancelDocument, sendDraft } from '../documents/send-document.service.ts';
import { OPEN_DOCUMENT_STATUSES } from '../documents/document-status.ts';
import { emitEvent } from '../events/emit.ts';
import { listTemplateFields } from '../templates/templates.repository.ts';
import { seedFromTemplate } from '../templates/template-copy.ts';
import type { StoredRow } from './bulk-rows.ts';
import { completeIfDone, countRow } from './bulk-send-status.ts';
import * as repo from './bulk-sends.repository.ts';
import type { StoredSettings } from './bulk-sends.service.ts';

/** Another runner took the row first (an expired lease, another instance): this attempt is undone. */
class RowTaken extends Error {}

/**
 * Creates and sends the documents of rows [from, to) of a bulk send: the `bulk_send` job. Each
 * row is one transaction that takes the row (pending → sent, a conditional update), inserts the
 * document and sends it (invitations queued as mail jobs): after a crash the job runs again and
 * finds the committed rows taken, so each row's document exists exactly once. A row that cannot
 * be sent (the template lost its file, `expiresAt` passed) is marked failed and counted.
 */
export async function processBulkRows(deps: AppDeps, bulkSendId: string, from: number, to: number): Promise<void> {
  if (deps.dialect !== 'sqlite') return processRows(deps, bulkSendId, from, to);
  // SQLite has one writer: chunks run side by side only contend for it (in one run on a loaded
  // machine, two at once took several times as long as one after the other), so a process runs
  // its chunks one at a time.
  const previous = sqliteTurn.get(deps.db) ?? Promise.resolve();
  const mine = previous.then(() => processRows(deps, bulkSendId, from, to));
  sqliteTurn.set(deps.db, mine.catch(() => undefined));
  return mine;
}

/** The chunk each SQLite database's process is running, for the next one to wait on. */
const sqliteTurn = new WeakMap<object, Promise<void>>();

async function processRows(deps: AppDeps, bulkSendId: string, from: number, to: number): Promise<void> {
  const bulk = await repo.findBulkSendById(deps.db, bulkSendId);
  if (!bulk || bulk.status === 'cancelled' || bulk.status === 'completed') return;
  const { settings, meta } = JSON.parse(bulk.settings) as StoredSettings;
  const actor = { orgId: bulk.org_id, meta };
  // Template field ids in the order seedFromTemplate copies them: prefill values follow the copy.
  const templateFieldIds = (await listTemplateFields(deps.db, bulk.template_id)).map((f) => f.id);
  for (const pending of await repo.pendingRows(deps.db, bulkSendId, from, to)) {
    const row = JSON.parse(pending.data) as StoredRow;
    try {
      await sendRow(deps, actor, bulk.id, bulk.template_id, settings, pending.position, row, templateFieldIds);
    } catch (err) {
      if (err instanceof RowTaken) continue;
      if (!(err instanceof AppError)) throw err;
      const now = deps.clock.now().toISOString();
      await deps.db.transaction().execute(async (trx) => {
        if (await repo.takeRow(trx, bulk.id, pending.position, { error: `${err.code}: ${err.message}` }, now)) await countRow(trx, bulk.id, 'failed', now);
      });
    }
  }
  await finishIfDone(deps, bulkSendId);
}

async function sendRow(
  deps: AppDeps,
  actor: { orgId: string; meta: StoredSettings['meta'] },
  bulkSendId: string,
  templateId: string,
  settings: StoredSettings['settings'],
  position: number,
  row: StoredRow,
  templateFieldIds: string[],
): Promise<void> {
  const now = deps.clock.now().toISOString();
  const id = newId('doc');
  const seed = await seedFromTemplate(deps, actor.orgId, id, templateId, now);
  try {
    const signers = row.signers.map((s) => ({ order: s.order, name: s.name, email: s.email, phone: s.phone }));
    const built = buildNewDocument(deps, actor, id, { name: row.name, templateId, ...settings, signers }, seed, now);
    built.row.bulk_send_id = bulkSendId;
    // Prefill: the value becomes the field's default, which the signing page shows (editable
    // unless read-only) and a read-only field keeps when the signer completes.
    seed.fields.forEach((f, i) => {
      const value = row.values[templateFieldIds[i]];
      if (value !== undefined) f.default_value = value;
    });
    await deps.db.transaction().execute(async (trx) => {
      if (!(await repo.takeRow(trx, bulkSendId, position, { documentId: id }, now))) throw new RowTaken();
      await insertNewDocument(trx, deps, built);
      await sendDraft(trx, deps, actor, id);
      await countRow(trx, bulkSendId, 'sent', now);
    });
  } catch (err) {
    await seed.discard();
    throw err;
  }
}

/** Completes the bulk send once no row is pending, and emits `bulk_send.completed` with it (once). */
async function finishIfDone(deps: AppDeps, bulkSendId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now().toISOString();
    if (!(await completeIfDone(trx, bulkSendId, now))) return;
    const done = await repo.findBulkSendById(trx, bulkSendId);
    if (done) await emitEvent(trx, deps.clock, done.org_id, 'bulk_send.completed', repo.toBulkSend(done));
  });
}

/** Documents cancelled per run of the `bulk_send_cancel` job; the next run takes the rest. */
const CANCEL_BATCH = 200;

/** Cancels the documents a cancelled bulk send sent (each as `POST /documents/{id}/cancel` would). */
export async function cancelBulkDocuments(deps: AppDeps, bulkSendId: string): Promise<void> {
  const bulk = await repo.findBulkSendById(deps.db, bulkSendId);
  if (!bulk) return;
  const { meta } = JSON.parse(bulk.settings) as StoredSettings;
  const ids = await deps.db
    .selectFrom('documents')
    .select('id')
    .where('bulk_send_id', '=', bulkSendId)
    .where('status', 'in', OPEN_DOCUMENT_STATUSES)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .limit(CANCEL_BATCH)
    .execute();
  for (const { id } of ids) {
    try {
      await cancelDocument(deps, { orgId: bulk.org_id, meta }, id);
    } catch (err) {
      // Signed, declined or cancelled meanwhile: nothing left to cancel.
      if (!(err instanceof AppError) || (await findDocument(deps.db, bulk.org_id, id))?.status === 'pending') throw err;
    }
  }
  if (ids.length === CANCEL_BATCH) await enqueueJob(deps.db, deps.clock, 'bulk_send_cancel', { bulkSendId });
}
