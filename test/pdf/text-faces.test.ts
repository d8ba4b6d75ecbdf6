import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FontCache } from '../../src/fonts/font-cache.ts';
import { loadSigningCertificate, type SigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizePdf, type FinalizeField, type FinalizeInput } from '../../src/pdf/finalize.ts';
import { hasPoppler, makePdf, poppler, sampleInput, sha256 } from './pdf-helpers.ts';

/* Which face Han text is drawn in, and how a value longer than its field is laid out. */

const hasPdffonts = spawnSync('pdffonts', ['-v']).status === 0;
let dir: string;
let cert: SigningCertificate;
const fonts = new FontCache();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-faces-'));
  cert = await loadSigningCertificate({
    dataDir: path.join(dir, 'data'),
    signingCertP12: undefined,
    signingCertPassword: undefined,
    generatedCertPassword: 'a-test-password',
  });
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

let n = 0;
async function seal(fields: FinalizeField[], tweak?: (input: FinalizeInput) => void) {
  const original = await makePdf({ pages: 1, useObjectStreams: false });
  const source = path.join(dir, `in-${++n}.pdf`);
  const output = path.join(dir, `out-${n}.pdf`);
  await writeFile(source, original);
  const input = sampleInput(source, sha256(original), fields);
  tweak?.(input);
  await finalizePdf(input, cert, output, undefined, fonts);
  return output;
}

const field = (value: string, box = { x: 10, y: 30, width: 60, height: 4 }): FinalizeField => ({
  type: 'text',
  draw: 'text' as const,
  page: 1,
  ...box,
  value,
});

describe.skipIf(!hasPoppler || !hasPdffonts)('text faces and layout', () => {
  it.each([
    ['no locale, Han alone', '東京大学', undefined, 'NotoSansSC'],
    ['no locale, with kana', '東京大学です', undefined, 'NotoSansJP'],
    ['no locale, with hangul', '大韓民國 한국', undefined, 'NotoSansKR'],
    ['locale ja', '東京大学', 'ja', 'NotoSansJP'],
    ['locale zh-Hant', '東京大学', 'zh-Hant', 'NotoSansTC'],
    ['locale zh-TW', '東京大学', 'zh-TW', 'NotoSansTC'],
    ['locale ko', '大韓民國', 'ko-KR', 'NotoSansKR'],
  ])('draws Han text in the face of its locale or script: %s', async (_l, value, locale, face) => {
    const output = await seal([field(value)], (input) => {
      input.document.locale = locale;
    });
    const names = poppler('pdffonts', [output]).output;
    expect(names).toContain(face);
    for (const other of ['NotoSansSC', 'NotoSansJP', 'NotoSansKR', 'NotoSansTC'].filter(
      (f) => f !== face,
    ))
      expect(names).not.toContain(other);
  });

  it('shrinks a long value, then wraps it inside its field, and cuts nothing', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    const box = { x: 10, y: 30, width: 30, height: 6 };
    const output = await seal([field(words.join(' '), box)]);
    const bbox = poppler('pdftotext', ['-bbox', '-f', '1', '-l', '1', output, '-']).output;
    const found = [
      ...bbox.matchAll(
        /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(word\d+)<\/word>/g,
      ),
    ];
    expect(found.map((m) => m[5])).toEqual(words);
    // Every word inside the field's box (595 x 842 pt page, box in percent from the top-left).
    const [left, top] = [(box.x / 100) * 595, (box.y / 100) * 842];
    const [right, bottom] = [left + (box.width / 100) * 595, top + (box.height / 100) * 842];
    for (const m of found) {
      expect(Number(m[1])).toBeGreaterThanOrEqual(left - 0.5);
      expect(Number(m[3])).toBeLessThanOrEqual(right + 0.5);
      expect(Number(m[2])).toBeGreaterThanOrEqual(top - 0.5);
      expect(Number(m[4])).toBeLessThanOrEqual(bottom + 0.5);
    }
    // Wrapped on several lines.
    expect(new Set(found.map((m) => m[2])).size).toBeGreaterThan(1);
  });

  it('keeps a value on one line in a one-line field, shrunk, rather than wrapping it', async () => {
    const output = await seal([
      field('Aurelia Montgomery-Fitzgerald', { x: 10, y: 30, width: 22, height: 3 }),
    ]);
    const text = poppler('pdftotext', ['-f', '1', '-l', '1', output, '-']).output;
    expect(text).toContain('Aurelia Montgomery-Fitzgerald');
  });

  /** The certificate page's signer heading: where "1." lands against a right-to-left name. */
  async function headingOf(locale: string, signerName = 'محمد علي') {
    const output = await seal([], (input) => {
      input.document.locale = locale;
      input.signers[0].name = signerName;
    });
    const bbox = poppler('pdftotext', ['-bbox', '-f', '2', '-l', '2', output, '-']).output;
    const found = [
      ...bbox.matchAll(
        /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
      ),
    ].map((m) => ({ x0: Number(m[1]), y0: Number(m[2]), x1: Number(m[3]), text: m[5] }));
    // pdftotext gives a line's words in visual order: "1." reads ".1" inside right-to-left text.
    const number = found.find((w) => w.text === '1.' || w.text === '.1');
    expect(number).toBeDefined();
    // The name's words on the number's line.
    const name = found.filter(
      (w) => Math.abs(w.y0 - (number?.y0 ?? 0)) < 6 && /[\u0600-\u06ff]/.test(w.text),
    );
    expect(name.length).toBeGreaterThan(0);
    return {
      number: number as { x0: number; x1: number },
      nameLeft: Math.min(...name.map((w) => w.x0)),
      nameRight: Math.max(...name.map((w) => w.x1)),
    };
  }

  it.each([
    ['a plain name', 'محمد علي'],
    // A name that closes the isolate around it early, or overrides the direction, changes nothing.
    ['a name with a stray PDI', '\u2069محمد علي'],
    ['a name with a right-to-left override', '\u202eمحمد علي'],
  ])(
    'puts the number left of a right-to-left signer name on an English certificate: %s',
    async (_l, name) => {
      const { number, nameLeft } = await headingOf('en', name);
      expect(number.x1).toBeLessThanOrEqual(nameLeft + 0.5);
      // At the page's left margin, where every left-to-right heading starts.
      expect(number.x0).toBeLessThan(60);
    },
  );

  it('puts the number right of the name on an Arabic certificate', async () => {
    const { number, nameRight } = await headingOf('ar');
    expect(number.x0).toBeGreaterThanOrEqual(nameRight - 0.5);
  });
});
