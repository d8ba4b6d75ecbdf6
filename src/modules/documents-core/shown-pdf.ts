import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { imageToPdf, type ImageType } from '../../pdf/image-to-pdf.ts';
import { countPdfPages } from '../../pdf/page-count.ts';
import { REPAIR_LIMIT_BYTES } from '../../pdf/pdf-lib-guard.ts';
import type { PdfWorkers } from '../../pdf/pdf-workers.ts';
import type { Storage } from '../../storage/storage.ts';
import type { UploadContentType } from './documents.schemas.ts';
import { taggedPdfOf, type PdfOf } from './tag-intake.ts';

/* The PDF signers see of an upload checked and stored by file-intake.ts. */

/** What reading an upload uses: where it is stored, and the app's PDF threads. */
export type IntakeDeps = { storage: Storage; pdf: PdfWorkers };

async function readAll(storage: Storage, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The PDF signers will see: a PDF upload itself (read for its page count and to prove that
 * sealing can read it), or a one-page PDF made from an image and stored next to it.
 */
export async function pdfOf(
  { storage, pdf: workers }: IntakeDeps,
  key: string,
  type: UploadContentType,
  size: number,
  textTags: boolean,
): Promise<PdfOf> {
  if (type === 'application/pdf') {
    if (textTags) return taggedPdfOf(storage, workers, key);
    if (size <= REPAIR_LIMIT_BYTES)
      return {
        pdfKey: key,
        pageCount: await countPdfPages(workers, { bytes: await readAll(storage, key) }),
      };
    // Larger files are read from a copy on local disk (whatever the storage), never held whole.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'signet-intake-'));
    try {
      const copy = path.join(dir, 'upload.pdf');
      await pipeline(await storage.get(key), createWriteStream(copy, { mode: 0o600 }));
      return { pdfKey: key, pageCount: await countPdfPages(workers, { path: copy }) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const pdf = await imageToPdf(await readAll(storage, key), type as ImageType);
  const pdfKey = `${key}.pdf`;
  await storage.put(
    pdfKey,
    Readable.from(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength)),
    'application/pdf',
  );
  return { pdfKey, pageCount: 1 };
}
