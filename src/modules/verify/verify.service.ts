import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Db } from '../../db/database.ts';
import { AppError, busy } from '../../http/errors.ts';
import { WorkerBusyError, WorkerLimitError } from '../../pdf/bounded-worker.ts';
import { PdfError } from '../../pdf/syntax.ts';
import type { VerificationReport } from '../../pdf/verify.ts';
import type { PdfWorkers } from '../../pdf/pdf-workers.ts';
import { verifyInWorker, type VerifyLane } from '../../pdf/verify-worker.ts';

/** The largest file `/api/v1/verify` and the public page take. */
export const VERIFY_MAX_BYTES = 50 * 1024 * 1024;

interface MatchedDocument {
  id: string;
  name: string;
  status: string;
  completedAt: string | null;
}

/**
 * Streams the request body to a private temp file (never whole in memory, at most
 * VERIFY_MAX_BYTES), checks it is a PDF, verifies it on the worker thread of its `lane`, and
 * removes the file: nothing is kept. Returns the report and the file's SHA-256.
 */
export async function verifyUpload(
  pdf: PdfWorkers,
  body: Readable | undefined,
  declaredLength: number | undefined,
  lane: VerifyLane,
): Promise<{ report: VerificationReport; sha256: string }> {
  if (!body)
    throw new AppError('validation_error', 'Send the PDF as the request body', [
      { path: 'body', message: 'empty' },
    ]);
  if (declaredLength !== undefined && declaredLength > VERIFY_MAX_BYTES) {
    throw new AppError('payload_too_large', `The file is larger than ${VERIFY_MAX_BYTES} bytes`);
  }
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'signet-verify-'));
  try {
    const file = path.join(dir, 'upload.pdf');
    const hash = createHash('sha256');
    let size = 0;
    let head = Buffer.alloc(0);
    const out = fs.createWriteStream(file, { mode: 0o600 });
    try {
      // Not destroyed on a refusal (the default for `for await`): that would reset the connection
      // before the 413 reaches the client (http/lingering-close.ts reads the rest).
      for await (const chunk of body.iterator({ destroyOnReturn: false })) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        if (size > VERIFY_MAX_BYTES)
          throw new AppError(
            'payload_too_large',
            `The file is larger than ${VERIFY_MAX_BYTES} bytes`,
          );
        if (head.length < 1024) head = Buffer.concat([head, bytes.subarray(0, 1024 - head.length)]);
        hash.update(bytes);
        if (!out.write(bytes))
          await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      }
    } finally {
      await new Promise<void>((resolve) => out.end(() => resolve()));
    }
    if (size === 0)
      throw new AppError('validation_error', 'Send the PDF as the request body', [
        { path: 'body', message: 'empty' },
      ]);
    if (!head.includes('%PDF-'))
      throw new AppError('unsupported_media_type', 'The file is not a PDF');
    let report: VerificationReport;
    try {
      report = await verifyInWorker(pdf, file, lane);
    } catch (err) {
      if (err instanceof WorkerBusyError)
        throw busy('Too many files are waiting to be checked', err.retryAfterSeconds);
      if (err instanceof PdfError || err instanceof WorkerLimitError) {
        throw new AppError('unsupported_media_type', `The PDF cannot be read: ${err.message}`);
      }
      throw err;
    }
    return { report, sha256: hash.digest('hex') };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** The document of `orgId` (or of any organization when null) whose signed file or original has this SHA-256. */
export async function matchDocument(
  db: Db,
  sha256: string,
  orgId: string | null,
): Promise<MatchedDocument | null> {
  let q = db
    .selectFrom('documents')
    .select(['id', 'name', 'status', 'completed_at'])
    .where((eb) => eb.or([eb('signed_file_hash', '=', sha256), eb('document_hash', '=', sha256)]))
    .where('deleted_at', 'is', null);
  if (orgId) q = q.where('org_id', '=', orgId);
  const row = await q.orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  return row
    ? { id: row.id, name: row.name, status: row.status, completedAt: row.completed_at }
    : null;
}
