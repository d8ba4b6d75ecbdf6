import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { pageGeometry, readDocumentTree } from '../../src/pdf/pages.ts';
import { PdfFile } from '../../src/pdf/reader.ts';
import { PdfError } from '../../src/pdf/syntax.ts';
import { objectStreamBomb } from '../hostile/bombs.ts';
import { makePdf } from './pdf-helpers.ts';

/*
 * Random mutations of real PDFs (classic xref, object and xref streams, a bomb's structure): the
 * reader answers a page count or throws one of its own errors (PdfError: syntax, unsupported,
 * limit), never anything else (no RangeError from a stack or a Map, no TypeError), and each read
 * stays small in time and memory.
 */

let seeds: Buffer[] = [];
beforeAll(async () => {
  seeds = [
    await makePdf({ pages: 3, useObjectStreams: false }),
    await makePdf({ pages: 3, useObjectStreams: true, rotate: (p) => p * 90 }),
    await objectStreamBomb(4096),
  ];
});

/** A number a mutation writes over another: small, huge, negative or not quite a number. */
const numberText = fc.oneof(
  fc.integer({ min: 0, max: 20 }).map(String),
  fc.constantFrom(
    '0',
    '-1',
    '4294967295',
    '9007199254740993',
    '1e308',
    '99999999',
    '3.5',
    '[',
    ']',
    '<<',
    '>>',
    'R',
    '0 0 R',
  ),
);

const mutation = fc.oneof(
  // Flip a byte.
  fc.record({
    kind: fc.constant('flip' as const),
    at: fc.nat(),
    value: fc.integer({ min: 0, max: 255 }),
  }),
  // Cut the file.
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  // Replace the n-th number token with another.
  fc.record({ kind: fc.constant('number' as const), at: fc.nat(), text: numberText }),
  // Put a hostile fragment somewhere: deep nesting, a zero-width xref row, a huge count.
  fc.record({
    kind: fc.constant('inject' as const),
    at: fc.nat(),
    text: fc.constantFrom(
      '['.repeat(20_000),
      '<</A '.repeat(5_000),
      '/W [0 0 0]/Index [0 30000000]',
      '/N 9999999',
      '/Length 99999999',
      '/Columns 0',
    ),
  }),
  // Repeat a slice (duplicated objects, nesting).
  fc.record({
    kind: fc.constant('repeat' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 64 }),
    times: fc.integer({ min: 2, max: 200 }),
  }),
);

function mutate(pdf: Buffer, m: typeof mutation extends fc.Arbitrary<infer T> ? T : never): Buffer {
  const at = m.at % pdf.length;
  switch (m.kind) {
    case 'flip': {
      const out = Buffer.from(pdf);
      out[at] = m.value;
      return out;
    }
    case 'cut':
      return pdf.subarray(0, at);
    case 'number': {
      const text = pdf.toString('latin1');
      const numbers = [...text.matchAll(/\d+/g)];
      if (numbers.length === 0) return pdf;
      const hit = numbers[m.at % numbers.length];
      return Buffer.from(
        text.slice(0, hit.index) + m.text + text.slice(hit.index! + hit[0].length),
        'latin1',
      );
    }
    case 'inject':
      return Buffer.concat([pdf.subarray(0, at), Buffer.from(m.text, 'latin1'), pdf.subarray(at)]);
    case 'repeat': {
      const slice = pdf.subarray(at, at + m.length);
      return Buffer.concat([
        pdf.subarray(0, at),
        ...Array.from({ length: m.times }, () => slice),
        pdf.subarray(at + m.length),
      ]);
    }
  }
}

function read(bytes: Buffer): number {
  const file = PdfFile.fromBuffer(bytes);
  try {
    const tree = readDocumentTree(file);
    for (const page of tree.pages) pageGeometry(file, page);
    return tree.pages.length;
  } finally {
    file.close();
  }
}

describe('the PDF reader under random mutations of real PDFs', () => {
  it('reads the unmutated files', () => {
    expect(seeds.map(read)).toEqual([3, 3, 1]);
  });

  it('throws only its own errors, quickly and without growing memory', () => {
    const rssBefore = process.memoryUsage().rss;
    fc.assert(
      fc.property(
        fc.nat({ max: 2 }),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (seed, mutations) => {
          const bytes = mutations.reduce((pdf, m) => mutate(pdf, m), seeds[seed]);
          const started = Date.now();
          try {
            read(bytes);
          } catch (err) {
            if (!(err instanceof PdfError)) throw err;
          }
          expect(Date.now() - started).toBeLessThan(2000);
        },
      ),
      { numRuns: 600 },
    );
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
  });
});
