import { afterAll, describe, expect, it } from 'vitest';
import { readDocumentTree } from '../../src/pdf/pages.ts';
import { PdfFile } from '../../src/pdf/reader.ts';
import { PDF_LIMITS, PdfLimitError, PdfSyntaxError } from '../../src/pdf/syntax.ts';
import { countPdfPages, UnreadablePdfError } from '../../src/pdf/page-count.ts';
import { PdfWorkers } from '../../src/pdf/pdf-workers.ts';
import {
  brokenXrefObjectStreamBomb,
  deepNesting,
  deepPageTree,
  objectStreamBomb,
  selfReferencingObjectStream,
  zeroWidthXref,
} from '../hostile/bombs.ts';

/** Reads the file as sealing does; returns the page count or the error thrown. */
function read(bytes: Buffer): number | Error {
  try {
    const file = PdfFile.fromBuffer(bytes);
    try {
      return readDocumentTree(file).pages.length;
    } finally {
      file.close();
    }
  } catch (err) {
    return err as Error;
  }
}

const rssMb = () => process.memoryUsage().rss / 1e6;

describe('the PDF reader holds every file to its limits', () => {
  it('reads the catalog out of an object stream of ordinary size', async () => {
    expect(read(await objectStreamBomb(10_000))).toBe(1);
  });

  it('refuses an object stream that inflates past the per-stream limit, without inflating it', async () => {
    const bomb = await objectStreamBomb(1024 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const before = rssMb();
    const result = read(bomb);
    expect(result).toBeInstanceOf(PdfLimitError);
    expect((result as Error).message).toMatch(/inflates to more than/);
    expect(rssMb() - before).toBeLessThan(PDF_LIMITS.streamInflateBytes / 1e6 + 100);
  });

  it('refuses an xref stream with /W [0 0 0] and a huge /Index before building anything', () => {
    const started = Date.now();
    expect(read(zeroWidthXref(50_000_000))).toBeInstanceOf(PdfSyntaxError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses an /Index that claims more rows than the xref stream holds', () => {
    const pdf = zeroWidthXref(1);
    const claims = Buffer.from(
      pdf.toString('latin1').replace('/W [0 0 0]/Index [0 1]', '/W [1 4 2]/Index [0 9999999]'),
      'latin1',
    );
    expect((read(claims) as Error).message).toMatch(/claims 9999999 entries/);
  });

  it('refuses arrays nested deeper than the limit (no stack overflow)', () => {
    const result = read(deepNesting(200_000));
    expect(result).toBeInstanceOf(PdfLimitError);
  });

  it('refuses a page tree deeper than the limit (no stack overflow)', () => {
    expect(read(deepPageTree(5000))).toBeInstanceOf(PdfLimitError);
  });

  it('refuses an object stream that needs itself to be read', () => {
    expect((read(selfReferencingObjectStream()) as Error).message).toMatch(/refers to itself/);
  });
});

describe('upload parsing (countPdfPages, on the intake thread)', () => {
  const workers = new PdfWorkers();
  afterAll(() => workers.close());

  it('answers too_large for an object stream bomb, read by Signet or by the pdf-lib fallback', async () => {
    for (const bomb of [
      await objectStreamBomb(512 * 1024 * 1024),
      await brokenXrefObjectStreamBomb(512 * 1024 * 1024),
    ]) {
      const before = rssMb();
      const err = await countPdfPages(workers, { bytes: bomb }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnreadablePdfError);
      expect(err).toMatchObject({ reason: 'too_large' });
      expect(rssMb() - before).toBeLessThan(400);
    }
  });

  it('still counts the pages of a file only the fallback can read', async () => {
    expect(await countPdfPages(workers, { bytes: await brokenXrefObjectStreamBomb(1000) })).toBe(1);
  });
});
