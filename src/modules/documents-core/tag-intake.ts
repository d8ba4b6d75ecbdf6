import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Executor } from '../../db/database.ts';
import { WorkerBusyError } from '../../pdf/bounded-worker.ts';
import { countPdfPages } from '../../pdf/page-count.ts';
import type { PdfWorkers } from '../../pdf/pdf-workers.ts';
import { stripTagsInWorker, type FoundTag } from '../../pdf/tag-strip.ts';
import type { Storage } from '../../storage/storage.ts';
import { listSigners } from './signers.repository.ts';
import { buildFieldRows, MAX_FIELDS } from './fields.rules.ts';
import { insertFields } from './fields.repository.ts';
import { fieldsFromTags, type IntakeWarning, type TagAssignees } from './text-tags.ts';
import type { FieldInputT } from './fields.schemas.ts';

/*
 * Intake of a PDF uploaded with `textTags: true`: its tags are read and removed on a worker
 * thread (src/pdf/tag-strip.ts); when any was removed, the file without them is stored next to
 * the upload and becomes the PDF signers see, while `documentHash` stays the upload's hash.
 */

/** Suffix of the stored PDF without tags, next to the upload's key. */
export const WITHOUT_TAGS = '.without-tags.pdf';

/** The tags of one upload; `failure` when its text could not be read for them. */
export interface ReadTags {
  found: FoundTag[];
  count: number;
  failure: string | null;
}

export interface PdfOf {
  pdfKey: string;
  pageCount: number;
  tags?: ReadTags;
  shownHash?: string | null;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** pdfOf for a PDF whose tags are asked for: page count, tags, and the file without them. */
export async function taggedPdfOf(
  storage: Storage,
  workers: PdfWorkers,
  key: string,
): Promise<PdfOf> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'signet-tags-'));
  try {
    const copy = path.join(dir, 'upload.pdf');
    const out = path.join(dir, 'without-tags.pdf');
    await pipeline(await storage.get(key), createWriteStream(copy, { mode: 0o600 }));
    const pageCount = await countPdfPages(workers, { path: copy });
    let read: Awaited<ReturnType<typeof stripTagsInWorker>>;
    try {
      read = await stripTagsInWorker(workers, copy, out);
    } catch (err) {
      if (err instanceof WorkerBusyError) throw err;
      // A readable PDF whose text this reader cannot follow: signers get it as uploaded.
      const failure = `the file's text could not be read for tags: ${(err as Error).message}`;
      return { pdfKey: key, pageCount, tags: { found: [], count: 0, failure } };
    }
    const tags = { found: read.tags, count: read.count, failure: null };
    if (!read.written) return { pdfKey: key, pageCount, tags };
    const pdfKey = `${key}${WITHOUT_TAGS}`;
    await storage.put(pdfKey, createReadStream(out), 'application/pdf');
    return { pdfKey, pageCount, tags, shownHash: await sha256Of(out) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The fields and warnings of read tags for these assignees, at most `room` fields. */
export function tagOutcome(tags: ReadTags, who: TagAssignees, room: number) {
  if (tags.failure)
    return {
      fields: [] as FieldInputT[],
      warnings: [{ code: 'tag_not_removed', message: tags.failure, page: null } as IntakeWarning],
    };
  const { fields, warnings } = fieldsFromTags(tags.found, tags.count, who);
  if (fields.length > room) {
    const past = fields.splice(Math.max(0, room));
    if (!warnings.some((w) => w.code === 'too_many_tags'))
      warnings.push({
        code: 'too_many_tags',
        message: `A document or template holds at most ${MAX_FIELDS} fields; ${past.length} tag(s) made no field`,
        page: past[0].page,
      });
  }
  return { fields, warnings };
}

/**
 * On the locked document being given a file read for tags: replaces the fields earlier tags
 * made with this file's, and returns its warnings (as stored).
 */
export async function replaceTagFields(
  trx: Executor,
  documentId: string,
  tags: ReadTags,
  now: string,
): Promise<string> {
  const orders = (await listSigners(trx, documentId)).map((s) => s.position);
  await trx
    .deleteFrom('fields')
    .where('document_id', '=', documentId)
    .where('origin', '=', 'tag')
    .execute();
  const others = await trx
    .selectFrom('fields')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('document_id', '=', documentId)
    .executeTakeFirst();
  const { fields, warnings } = tagOutcome(
    tags,
    { orders: orders.length > 0 ? orders : null },
    MAX_FIELDS - Number(others?.n ?? 0),
  );
  const rows = buildFieldRows(documentId, fields, now).map((r) => ({ ...r, origin: 'tag' }));
  await insertFields(trx, rows);
  return JSON.stringify(warnings);
}
