import { EncryptedPDFError } from 'pdf-lib';
import { WorkerBusyError, WorkerLimitError } from './bounded-worker.ts';
import type { PdfWorkers } from './pdf-workers.ts';
import { readDocumentTree } from './pages.ts';
import { loadWithPdfLib } from './pdf-lib-guard.ts';
import { PdfFile } from './reader.ts';
import { PdfLimitError, PdfSyntaxError, PdfUnsupportedError } from './syntax.ts';

/** The bounds of reading one upload (docs/limits.md); the reader's own are `PDF_LIMITS`. */
const INTAKE_LIMITS = { heapMb: 256, deadlineMs: 20_000, maxWaiting: 32 };

export class UnreadablePdfError extends Error {
  constructor(
    message: string,
    /** `too_large`: the file asks for more than Signet reads (inflated size, time, memory). */
    readonly reason: 'unreadable' | 'too_large' = 'unreadable',
    /** What the reader said, for the log. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

const ENCRYPTED =
  'The PDF is encrypted (password-protected); remove the protection and upload it again';

/** The bytes of a PDF, or (a file past REPAIR_LIMIT_BYTES) the path of a copy on local disk. */
type CountTask = { bytes: Uint8Array } | { path: string };

const intakeWorker = (workers: PdfWorkers) =>
  workers.pool<CountTask, number>('intake', {
    moduleUrl: import.meta.url,
    exportName: 'countPagesTask',
    deadlineMs: INTAKE_LIMITS.deadlineMs,
    resourceLimits: { maxOldGenerationSizeMb: INTAKE_LIMITS.heapMb },
    maxWaiting: INTAKE_LIMITS.maxWaiting,
  });

/** Starts the intake thread and loads its code now (server start), not on the first upload. */
export async function warmIntakeWorker(workers: PdfWorkers): Promise<void> {
  await intakeWorker(workers)
    .run({ bytes: new Uint8Array(0) })
    .catch(() => undefined);
}

/**
 * The number of pages of a PDF, read on a worker thread within `INTAKE_LIMITS` and `PDF_LIMITS`
 * (never on the API's event loop); rejects with `UnreadablePdfError` when it cannot be used.
 */
export async function countPdfPages(workers: PdfWorkers, source: CountTask): Promise<number> {
  let pages: number;
  try {
    pages = await intakeWorker(workers).run(source);
  } catch (err) {
    // A full queue is not the file's fault: the caller answers 503 `busy`.
    if (err instanceof WorkerBusyError) throw err;
    const { name, message } = err as Error;
    if (name === 'PdfLimitError' || err instanceof WorkerLimitError) {
      throw new UnreadablePdfError(
        `The PDF asks for more than Signet reads from one file: ${message}`,
        'too_large',
        err,
      );
    }
    if (name === 'EncryptedPDFError' || /encrypted/.test(message))
      throw new UnreadablePdfError(ENCRYPTED);
    throw new UnreadablePdfError(
      'The file starts like a PDF but cannot be read as one; it may be truncated or corrupt',
      'unreadable',
      err,
    );
  }
  if (pages < 1) throw new UnreadablePdfError('The PDF has no pages');
  return pages;
}

/**
 * On the intake thread: the page count as sealing will read it (Signet's bounded reader), or,
 * for a file it cannot read, as pdf-lib rebuilds it (sealing repairs such files the same way, up
 * to REPAIR_LIMIT_BYTES). Every PDF upload is read here, whatever its size: an inflate bomb is
 * refused before anyone signs it.
 * @public (called by name, so the dead-export check keeps it)
 */
export async function countPagesTask(source: CountTask): Promise<number> {
  // Read from disk, the file is never held whole; it is past the size pdf-lib may rebuild, so
  // Signet's reader must read it (as sealing will).
  if ('path' in source) return pagesOf(PdfFile.open(source.path));
  const buf = Buffer.from(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength);
  try {
    return pagesOf(PdfFile.fromBuffer(buf));
  } catch (err) {
    if (err instanceof PdfLimitError) throw err;
    if (err instanceof PdfUnsupportedError && /encrypted/.test(err.message)) throw err;
    if (!(err instanceof PdfSyntaxError || err instanceof PdfUnsupportedError)) throw err;
  }
  try {
    return (await loadWithPdfLib(buf)).getPageCount();
  } catch (err) {
    if (err instanceof EncryptedPDFError)
      throw new PdfUnsupportedError('encrypted PDFs cannot be signed');
    throw err;
  }
}

function pagesOf(file: PdfFile): number {
  try {
    return readDocumentTree(file).pages.length;
  } finally {
    file.close();
  }
}
