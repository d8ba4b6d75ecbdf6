import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PdfFile } from '../../src/pdf/reader.ts';
import { verifyPdf } from '../../src/pdf/verify.ts';
import { detachedCms, signatureBombPdf } from '../hostile/signature-bomb.ts';

/*
 * Verification hashes each distinct byte range once: signatures that cover the same bytes share
 * one digest, so a file of many signatures over the whole file costs one pass over it; signatures
 * with different ranges are still hashed each on its own. Bytes are counted as the hashing reads
 * them from the file, not timed.
 */

const SIZE = 2 * 1024 * 1024;
let dir: string;
let cms: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-verify-ranges-'));
  cms = detachedCms();
});
afterAll(async () => rm(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

async function bomb(signatures: number, ranges: 'shared' | 'distinct'): Promise<string> {
  const file = path.join(dir, `${signatures}-${ranges}.pdf`);
  await pipeline(
    Readable.from(signatureBombPdf(SIZE, signatures, cms, ranges)),
    createWriteStream(file),
  );
  return file;
}

/** Verifies `file`, counting the bytes read for hashing. */
function verifyCounting(file: string) {
  let hashed = 0;
  const readInto = PdfFile.prototype.readInto;
  vi.spyOn(PdfFile.prototype, 'readInto').mockImplementation(function (
    this: PdfFile,
    buf,
    position,
  ) {
    const n = readInto.call(this, buf, position);
    hashed += Math.max(0, n);
    return n;
  });
  const report = verifyPdf(file);
  vi.restoreAllMocks();
  return { report, hashed };
}

describe('signatures over the same bytes', () => {
  it('are hashed once for all of them, with the verdict each would have alone', async () => {
    const alone = verifyCounting(await bomb(1, 'shared'));
    expect(alone.report.signatures).toHaveLength(1);
    expect(alone.hashed).toBe(SIZE);

    const many = verifyCounting(await bomb(20, 'shared'));
    expect(many.report.signatures).toHaveLength(20);
    for (const report of many.report.signatures) expect(report).toEqual(alone.report.signatures[0]);
    expect(many.report.modifiedAfterLastSignature).toBe(alone.report.modifiedAfterLastSignature);
    // One pass over the file, not 20.
    expect(many.hashed).toBe(SIZE);
  });

  it('signatures over different ranges are each hashed over their own bytes', async () => {
    const { report, hashed } = verifyCounting(await bomb(5, 'distinct'));
    expect(report.signatures).toHaveLength(5);
    for (const r of report.signatures)
      expect(r).toMatchObject({ valid: false, coversWholeDocument: true });
    // Range i skips the first i bytes: 5 passes of SIZE - i bytes.
    expect(hashed).toBe(5 * SIZE - (0 + 1 + 2 + 3 + 4));
  });
});
