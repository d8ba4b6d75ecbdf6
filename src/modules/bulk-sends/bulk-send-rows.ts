import type { AppDeps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { findDocument } from '../documents-core/documents.repository.ts';
import {
  buildNewDocument,
  insertNewDocuments,
  type NewDocument,
} from '../documents/create-document.service.ts';
import { cancelDocument } from '../documents/cancel-document.service.ts';
import { sendDrafts } from '../documents/send-document.service.ts';
import { OPEN_DOCUMENT_STATUSES } from '../documents-core/document-status.ts';
import { emitEvent } from '../events/emit.ts';
import {
  loadTemplateParts,
  seedFromTemplate,
  type TemplateParts,
} from '../templates/template-copy.ts';
import type { StoredRow } from './bulk-rows.ts';
import { completeIfDone, countRows, isOpenBulkSend } from './bulk-send-status.ts';
import * as repo from './bulk-sends.repository.ts';
import type { StoredSettings } from './bulk-sends.service.ts';

/** Another runner took the row first (an expired lease, another instance): this attempt is undone. */
class RowTaken extends Error {}

/** What sending rows uses: creating documents from the template and sending them. */
type RowDeps = Pick<AppDeps, 'config' | 'db' | 'dialect' | 'storage' | 'clock' | 'secret'>;

/**
 * Creates and sends the documents of rows [from, to) of a bulk send: the `bulk_send` job. A
 * group of rows is one transaction that takes each row (pending → sent, a conditional update),
 * inserts the documents and sends them (invitations queued as mail jobs): after a crash the job
 * runs again and finds the committed rows taken, so each row's document exists exactly once. A row
 * that cannot be sent (the template lost its file, `expiresAt` passed) is marked failed and
 * counted, on its own.
 */
export async function processBulkRows(
  deps: RowDeps,
  bulkSendId: string,
  from: number,
  to: number,
): Promise<void> {
  await turnFor(deps);
  try {
    await processRows(deps, bulkSendId, from, to);
  } finally {
    endTurn(deps);
  }
}

/*
 * Chunks a process runs at once; the job runner may hold more, which wait their turn. SQLite has
 * one writer: chunks side by side only contend for it (in one run on a loaded machine, two at once
 * took several times as long as one after the other). On PostgreSQL two overlap one's waits on the
 * database with the other's work; more only hold more of the pool's connections in long
 * transactions, which the API's reads then wait for (3,000 rows in `npm run bench -- bulk-send`:
 * p99 of reads 171 and 190 ms with ten at once, 20 and 23 ms with two).
 */
const CHUNKS_AT_ONCE = { sqlite: 1, postgres: 2 } as const;
const turns = new WeakMap<object, { running: number; waiting: (() => void)[] }>();

function turnsOf(deps: Pick<AppDeps, 'db'>) {
  let t = turns.get(deps.db);
  if (!t) {
    t = { running: 0, waiting: [] };
    turns.set(deps.db, t);
  }
  return t;
}

async function turnFor(deps: Pick<AppDeps, 'db' | 'dialect'>): Promise<void> {
  const t = turnsOf(deps);
  if (t.running < CHUNKS_AT_ONCE[deps.dialect]) {
    t.running++;
    return;
  }
  // endTurn hands its slot over: `running` stays as it is.
  await new Promise<void>((resolve) => t.waiting.push(resolve));
}

function endTurn(deps: Pick<AppDeps, 'db'>): void {
  const t = turnsOf(deps);
  const next = t.waiting.shift();
  if (next) next();
  else t.running--;
}

/**
 * Rows created and sent in one transaction: one commit, one statement per kind of row written
 * (on PostgreSQL one for all the documents' inserts), whatever the number of rows. Larger groups
 * hold the database longer: SQLite's one connection holds every other query (the API's reads
 * too) until a transaction ends, and on PostgreSQL a larger group is a longer burst of work for
 * the event loop. 10,000 rows in `npm run bench -- bulk-send`, p99 of the API's reads meanwhile:
 * SQLite 42 ms in groups of 50, 24 ms in groups of 20; PostgreSQL 40 ms in groups of 50, 28 ms in
 * groups of 25 (every invitation out after 37.7 s and 32.2 s). `PERF_OFF=bulk-groups` sends a
 * row at a time, for the benchmark.
 */
const ROWS_PER_TRANSACTION = { sqlite: 20, postgres: 25 } as const;

/** What every row of a chunk is sent with. */
interface Chunk {
  deps: RowDeps;
  actor: { orgId: string; meta: StoredSettings['meta'] };
  bulkSendId: string;
  templateId: string;
  settings: StoredSettings['settings'];
  /** The template, read once for the chunk; undefined when it is gone (each row then fails as a create would). */
  parts: TemplateParts | undefined;
}

interface PendingRow {
  position: number;
  row: StoredRow;
}

async function processRows(
  deps: RowDeps,
  bulkSendId: string,
  from: number,
  to: number,
): Promise<void> {
  const bulk = await repo.findBulkSendById(deps.db, bulkSendId);
  if (!bulk || !isOpenBulkSend(bulk)) return;
  const { settings, meta } = JSON.parse(bulk.settings) as StoredSettings;
  const parts = await loadTemplateParts(deps.db, bulk.org_id, bulk.template_id);
  const chunk: Chunk = {
    deps,
    actor: { orgId: bulk.org_id, meta },
    bulkSendId: bulk.id,
    templateId: bulk.template_id,
    settings,
    parts,
  };
  const pending = (await repo.pendingRows(deps.db, bulkSendId, from, to)).map((p) => ({
    position: p.position,
    row: JSON.parse(p.data) as StoredRow,
  }));
  const size = deps.config.perfOff.has('bulk-groups') ? 1 : ROWS_PER_TRANSACTION[deps.dialect];
  for (let i = 0; i < pending.length; i += size) {
    const group = pending.slice(i, i + size);
    if (group.length > 1) {
      try {
        await sendRows(chunk, group);
        continue;
      } catch (err) {
        if (!(err instanceof RowTaken) && !(err instanceof AppError)) throw err;
        // A row of the group cannot be sent, or another runner took one: nothing of the group was
        // written, and each row is tried on its own so that only that row fails or is skipped.
      }
    }
    for (const one of group) await sendAlone(chunk, one);
  }
  await finishIfDone(deps, bulkSendId);
}

/** One row in its own transaction; a row that cannot be sent is marked failed and counted. */
async function sendAlone(chunk: Chunk, one: PendingRow): Promise<void> {
  try {
    await sendRows(chunk, [one]);
  } catch (err) {
    if (err instanceof RowTaken) return;
    if (!(err instanceof AppError)) throw err;
    const now = chunk.deps.clock.now().toISOString();
    await chunk.deps.db.transaction().execute(async (trx) => {
      if (
        await repo.failRow(trx, chunk.bulkSendId, one.position, `${err.code}: ${err.message}`, now)
      )
        await countRows(trx, chunk.bulkSendId, 'failed', now);
    });
  }
}

/** Takes the rows, creates their documents and sends them, in one transaction: all of them or none. */
async function sendRows(chunk: Chunk, group: PendingRow[]): Promise<void> {
  const { deps, actor, bulkSendId, templateId, settings, parts } = chunk;
  const now = deps.clock.now().toISOString();
  // The template's file copied for every row at once: one after the other, the copies' waits on
  // the disk left the server idle a third of the time on SQLite, where chunks run one at a time.
  const seeded = await Promise.allSettled(
    group.map(() => seedFromTemplate(deps, actor.orgId, newId('doc'), templateId, now, parts)),
  );
  const seeds = seeded.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = seeded.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const builts: NewDocument[] = [];
    for (const [i, { row }] of group.entries()) {
      const seed = seeds[i];
      const id = seed.documentId;
      const signers = row.signers.map((s) => ({
        order: s.order,
        name: s.name,
        email: s.email,
        phone: s.phone,
        locale: s.locale ?? null,
      }));
      const built = buildNewDocument(
        deps,
        actor,
        id,
        { name: row.name, templateId, ...settings, locale: row.locale ?? null, signers },
        seed,
        now,
      );
      built.row.bulk_send_id = bulkSendId;
      // Prefill: the value becomes the field's default, which the signing page shows (editable
      // unless read-only) and a read-only field keeps when the signer completes. The seed's
      // fields are the template's, in the same order.
      seed.fields.forEach((f, i) => {
        const value = row.values[parts!.fields[i].id];
        if (value !== undefined) f.default_value = value;
      });
      builts.push(built);
    }
    await deps.db.transaction().execute(async (trx) => {
      const taken = group.map(({ position }, i) => ({ position, documentId: builts[i].row.id }));
      if (!(await repo.takeRowsForDocuments(trx, bulkSendId, taken, now))) throw new RowTaken();
      await insertNewDocuments(trx, deps, builts);
      await sendDrafts(
        trx,
        deps,
        actor,
        builts.map((b) => b.row.id),
      );
      await countRows(trx, bulkSendId, 'sent', now, group.length);
    });
  } catch (err) {
    await Promise.all(seeds.map((seed) => seed.discard()));
    throw err;
  }
}

/** Completes the bulk send once no row is pending, and emits `bulk_send.completed` with it (once). */
async function finishIfDone(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  bulkSendId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now().toISOString();
    if (!(await completeIfDone(trx, bulkSendId, now))) return;
    const done = await repo.findBulkSendById(trx, bulkSendId);
    if (done)
      await emitEvent(trx, deps.clock, done.org_id, 'bulk_send.completed', repo.toBulkSend(done));
  });
}

/** Documents cancelled per run of the `bulk_send_cancel` job; the next run takes the rest. */
const CANCEL_BATCH = 200;

/** Cancels the documents a cancelled bulk send sent (each as `POST /documents/{id}/cancel` would). */
export async function cancelBulkDocuments(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  bulkSendId: string,
): Promise<void> {
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
      if (
        !(err instanceof AppError) ||
        (await findDocument(deps.db, bulk.org_id, id))?.status === 'pending'
      )
        throw err;
    }
  }
  if (ids.length === CANCEL_BATCH)
    await enqueueJob(deps.db, deps.clock, 'bulk_send_cancel', { bulkSendId });
}
