import { inflateSync, constants } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import { PDF_LIMITS, PdfLimitError, PdfUnsupportedError } from './syntax.ts';

/*
 * pdf-lib is Signet's fallback for files its own reader cannot read (a broken xref is rebuilt
 * from the objects). When it loads a file it decodes every object stream in full, with no bound:
 * a small file can inflate to gigabytes. So before pdf-lib sees a file, every object stream in
 * it is inflated here first, within the reader's limits (`PDF_LIMITS`), by a linear scan of the
 * bytes as pdf-lib itself does (it ignores the xref too).
 */

const OBJSTM = /\/Type\s*\/ObjStm\b/g;
const FILTER = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/;

/** Throws `PdfLimitError` when an object stream would inflate past the limits, `PdfUnsupportedError` for filters other than Flate. */
function checkObjectStreams(bytes: Buffer): void {
  const text = bytes.toString('latin1');
  let total = 0;
  for (const match of text.matchAll(OBJSTM)) {
    const objStart = text.lastIndexOf(' obj', match.index);
    const streamAt = text.indexOf('stream', match.index);
    if (objStart < 0 || streamAt < 0 || streamAt - objStart > 4096) continue;
    const header = text.slice(objStart, streamAt);
    const filter = FILTER.exec(header)?.[1].replace(/[[\]\s]/g, '');
    if (filter === undefined) continue;
    if (filter !== '/FlateDecode')
      throw new PdfUnsupportedError(`object streams with the filter ${filter} are not supported`);
    let start = streamAt + 6;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] === 0x0a) start++;
    const budget = Math.min(PDF_LIMITS.streamInflateBytes, PDF_LIMITS.fileInflateBytes - total);
    try {
      // Sync flush: a stream cut short still counts what it would give pdf-lib.
      total += inflateSync(bytes.subarray(start), {
        maxOutputLength: Math.max(1, budget),
        finishFlush: constants.Z_SYNC_FLUSH,
      }).length;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new PdfLimitError(`an object stream inflates to more than ${budget} bytes`);
      }
      // Not inflatable at all: pdf-lib will fail on it too, cheaply.
    }
  }
}

/**
 * The largest PDF that Signet's reader cannot read and pdf-lib rebuilds from its objects instead
 * (at upload to count its pages, at sealing to rewrite it before signing): a full rewrite holds
 * several copies of the file in memory. A larger file Signet's reader cannot read is refused at
 * upload, since sealing could not read it either.
 */
export const REPAIR_LIMIT_BYTES = 10 * 1024 * 1024;

/** `PDFDocument.load` behind `checkObjectStreams`. */
export async function loadWithPdfLib(bytes: Buffer): Promise<PDFDocument> {
  checkObjectStreams(bytes);
  return PDFDocument.load(bytes, { updateMetadata: false });
}
