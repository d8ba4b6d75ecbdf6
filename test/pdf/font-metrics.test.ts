import { readFile } from 'node:fs/promises';
import * as hb from 'harfbuzzjs';
import { describe, expect, it } from 'vitest';
import decompressWoff2 from 'wawoff2/decompress.js';
import { readSlices } from '../../src/fonts/families.ts';
import { readMetrics } from '../../src/fonts/font-cache.ts';

/*
 * harfbuzzjs returns a font table as a view of its WebAssembly memory; when a later call grows
 * that memory, every view taken before is detached. A sealing that loaded a new slice at such a
 * moment failed with "Cannot perform DataView constructor on a detached ArrayBuffer" (found by
 * test/pdf/scripts.property.test.ts, about two runs in three on one sequence of documents).
 */

/** A face whose memory grows at every table asked for: each earlier table's buffer is detached. */
function growingAtEveryCall(face: hb.Face): Pick<hb.Face, 'referenceTable' | 'upem'> {
  const handedOut: ArrayBuffer[] = [];
  return {
    upem: face.upem,
    referenceTable(tag: string) {
      for (const buffer of handedOut.splice(0)) structuredClone(buffer, { transfer: [buffer] });
      const table = face.referenceTable(tag)?.slice();
      if (table) handedOut.push(table.buffer);
      return table;
    },
  };
}

describe('font metrics', () => {
  it('are read whole even when harfbuzz memory grows between two tables', async () => {
    const [slice] = readSlices('sans');
    const sfnt = new Uint8Array(await decompressWoff2(await readFile(slice.file)));
    const face = new hb.Face(new hb.Blob(sfnt));
    const metrics = readMetrics(growingAtEveryCall(face));
    expect(metrics).toEqual(readMetrics(face));
    expect(metrics.unitsPerEm).toBe(1000);
    expect(metrics.ascender).toBeGreaterThan(0);
    expect(metrics.descender).toBeLessThan(0);
    expect(metrics.capHeight).toBeGreaterThan(0);
    expect(metrics.bbox[2]).toBeGreaterThan(metrics.bbox[0]);
  });
});
