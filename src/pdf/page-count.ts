import { EncryptedPDFError } from 'pdf-lib';
import { BoundedWorker, WorkerLimitError } from './bounded-worker.ts';
import { readDocumentTree } from './pages.ts';
import { loadWithPdfLib } from './pdf-lib-guard.ts';
import { PdfFile } from './reader.ts';
import { PdfLimitError, PdfSyntaxError, PdfUnsupportedError } from './syntax.ts';

/**
 * PDFs up to this size are parsed at upload (page count, and proof that the later stamping step
 * can read them); larger files are stored unparsed and keep a null page count.
 */
export const MAX_PARSED_PDF_BYTES = 10 * 1024 * 1024;

/** The bounds of reading one upload (README, "Limits"); the reader's own are `PDF_LIMITS`. */
export const INTAKE_LIMITS = { heapMb: 256, deadlineMs: 20_000 };

export class UnreadablePdfError extends Error {
  constructor(
    message: string,
    /** `too_large`: the file asks for more than Signet reads (inflated size, time, memory). */
    readonly reason: 'unreadable' | 'too_large' = 'unreadable',
  ) {
    super(message);
  }
}

const ENCRYPTED = 'The PDF is encrypted (password-protected); remove the protection and upload it again';

let worker: BoundedWorker<{ bytes: Uint8Array }, number> | null = null;

const intakeWorker = () =>
  (worker ??= new BoundedWorker({
    moduleUrl: import.meta.url,
    exportName: 'countPagesTask',
    deadlineMs: INTAKE_LIMITS.deadlineMs,
    resourceLimits: { maxOldGenerationSizeMb: INTAKE_LIMITS.heapMb },
  }));

/** Starts the intake thread and loads its code now (server start), not on the first upload. */
export async function warmIntakeWorker(): Promise<void> {
  await intakeWorker().run({ bytes: new Uint8Array(0) }).catch(() => undefined);
}

/**
 * The number of pages of a PDF, read on a worker thread within `INTAKE_LIMITS` and `PDF_LIMITS`
 * (never on the API's event loop); rejects with `UnreadablePdfError` when it cannot be used.
 */
export async function countPdfPages(bytes: Uint8Array): Promise<number> {
  let pages: number;
  try {
    pages = await intakeWorker().run({ bytes });
  } catch (err) {
    const { name, message } = err as Error;
    if (name === 'PdfLimitError' || err instanceof WorkerLimitError) {
      throw new UnreadablePdfError(`The PDF asks for more than Signet reads from one file: ${message}`, 'too_large');
    }
    if (name === 'EncryptedPDFError' || /encrypted/.test(message)) throw new UnreadablePdfError(ENCRYPTED);
    throw new UnreadablePdfError('The file starts like a PDF but cannot be read as one; it may be truncated or corrupt');
  }
  if (pages < 1) throw new UnreadablePdfError('The PDF has no pages');
  return pages;
}

/** Stops the intake thread (graceful shutdown, tests). */
export async function closeIntakeWorker(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await w.close();
}

/**
 * On the intake thread: the page count as sealing will read it (Signet's bounded reader), or,
 * for a file it cannot read, as pdf-lib rebuilds it (sealing repairs such files the same way).
 */
export async function countPagesTask({ bytes }: { bytes: Uint8Array }): Promise<number> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const file = PdfFile.fromBuffer(buf);
    try {
      return readDocumentTree(file).pages.length;
    } finally {
      file.close();
    }
  } catch (err) {
    if (err instanceof PdfLimitError) throw err;
    if (err instanceof PdfUnsupportedError && /encrypted/.test(err.message)) throw err;
    if (!(err instanceof PdfSyntaxError || err instanceof PdfUnsupportedError)) throw err;
  }
  try {
    return (await loadWithPdfLib(buf)).getPageCount();
  } catch (err) {
    if (err instanceof EncryptedPDFError) throw new PdfUnsupportedError('encrypted PDFs cannot be signed');
    throw err;
  }
}
