import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FontCache } from '../../src/fonts/font-cache.ts';
import { loadSigningCertificate, type SigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizePdf, type FinalizeField } from '../../src/pdf/finalize.ts';
import { hasPoppler, makePdf, poppler, sampleInput, sha256 } from './pdf-helpers.ts';

/**
 * Random text in every script Signet ships a font for, drawn into fields and onto the
 * certificate page, read back with poppler's pdftotext (not the code under test): each word
 * comes back with its letters in reading order, and every font in the file is embedded.
 *
 * pdftotext orders the runs of a line that mixes directions by its own page-wide guess (its
 * output wraps right-to-left runs in embedding marks, stripped here), so for mixed lines the
 * check is per run: each maximal stretch of one direction inside a word comes back as written.
 */

const chars = (s: string) => [...s];
const POOLS: Record<string, string[]> = {
  latin: chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'),
  latinExt: chars('ąćęłńóśźżĄĆĘŁŃÓŚŹŻřšžčďťňůěŘŠŽČşğıİüöçæøåßœ'),
  greek: chars('αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΘΛΞΠΣΦΨΩάέήίόύώ'),
  cyrillic: chars('абвгдежзийклмнопрстуфхцчшщъыьэюяАБВГДЖЗИЙЛПФЦЧШЩЭЮЯёїієґ'),
  arabic: chars('ابتثجحخدذرزسشصضطظعغفقكلمنهويءآأإةى'),
  hebrew: chars('אבגדהוזחטיכלמנסעפצקרשתךםןףץ'),
  devanagari: ['क', 'ख', 'ग', 'न', 'म', 'स', 'ह', 'र', 'कि', 'की', 'के', 'को', 'स्त', 'क्ष', 'नं'],
  thai: ['ก', 'ข', 'ค', 'ง', 'จ', 'ม', 'ส', 'ห', 'อ', 'กา', 'กิ', 'เก', 'ไม', 'ก่', 'น้ำ'],
  kana: chars('あいうえおかきくけこさしすせそたちつてとなにぬねのアイウエオカキクケコサシスセソ'),
  hangul: chars('가나다라마바사아자차카타파하김민준서연지우'),
  han: chars('山田太郎中国北京東京大学李王张陈愛國學'),
  digits: chars('0123456789'),
};

const word = (pool: string[]) =>
  fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 7 }).map((a) => a.join(''));
const words = (pool: string[]) =>
  fc.array(word(pool), { minLength: 1, maxLength: 3 }).map((a) => a.join(' '));

const value = fc.oneof(
  ...Object.entries(POOLS)
    .filter(([k]) => k !== 'digits')
    .map(([, pool]) => words(pool)),
  // Mixed runs: two scripts in one value.
  fc
    .tuple(fc.constantFrom(...Object.keys(POOLS)), fc.constantFrom(...Object.keys(POOLS)))
    .chain(([a, b]) => fc.tuple(words(POOLS[a]), words(POOLS[b])).map(([x, y]) => `${x} ${y}`)),
  // Numbers inside right-to-left text.
  fc
    .tuple(words(POOLS.arabic), word(POOLS.digits), words(POOLS.hebrew))
    .map(([a, n, b]) => `${a} ${n} ${b}`),
  // Combining marks, written decomposed.
  fc
    .array(
      fc.tuple(
        fc.constantFrom(...chars('aeiouncyzAEIOU')),
        fc.constantFrom('\u0301', '\u0300', '\u0308', '\u0302', '\u030c', '\u0327'),
      ),
      { minLength: 1, maxLength: 6 },
    )
    .map((pairs) => pairs.map(([b, m]) => b + m).join('')),
  // Emoji, with a skin tone now and then.
  fc
    .array(fc.constantFrom('😀', '🎉', '👍', '👍🏽', '❤️', '🚀', '✅', '🇫🇷'), {
      minLength: 1,
      maxLength: 4,
    })
    .map((a) => `ok ${a.join('')}`),
);

const MARKS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const norm = (s: string) => s.normalize('NFKC').replace(MARKS, '').replace(/\s+/g, ' ').trim();
const RTL = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;

/**
 * A line of pdftotext's output back in the order it was written, where pdftotext took the page
 * for right-to-left (it does when the page holds more right-to-left letters than left-to-right
 * ones). It then reads each line from the right and wraps the left-to-right runs in LRE…PDF,
 * but counts a run's trailing combining marks as right-to-left: "a̧" comes out as RLE "◌̧" LRE
 * "a" PDF PDF, "אב नं" as RLE "אב ◌ं" LRE "न" PDF PDF, from the file's own /ActualText. The marks
 * go back to the end of their run. A line with no right-to-left letter is also read from the
 * right whole: what lies outside its runs (emoji, spaces) comes out reversed code point by code
 * point, "ok 😀✅" as RLE "✅😀 " LRE "ok" PDF PDF; reversing those pieces again gives it as drawn.
 */
function asWritten(line: string): string {
  const marked = line.replace(/(\p{M}+)\u202a([^\u202c]*)\u202c/gu, '\u202a$2$1\u202c');
  if (!marked.startsWith('\u202b') || !marked.endsWith('\u202c') || RTL.test(marked)) return marked;
  return (marked.slice(1, -1).match(/\u202a[^\u202c]*\u202c|[\s\S]/gu) ?? []).reverse().join('');
}

/** A word cut into stretches of one direction (right-to-left letters, or anything else). */
function directionalPieces(w: string): string[] {
  return (
    w.match(/[\p{Script=Arabic}\p{Script=Hebrew}]+|[^\p{Script=Arabic}\p{Script=Hebrew}]+/gu) ?? []
  );
}

let dir: string;
let cert: SigningCertificate;
const fonts = new FontCache();
const hasPdffonts = spawnSync('pdffonts', ['-v']).status === 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-scripts-'));
  cert = await loadSigningCertificate({
    dataDir: path.join(dir, 'data'),
    signingCertP12: undefined,
    signingCertPassword: undefined,
    generatedCertPassword: 'a-test-password',
  });
  if (!hasPoppler || !hasPdffonts)
    console.warn('pdftotext/pdffonts (Debian poppler-utils) not found: skipping the script tests');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

let run = 0;
async function seal(values: string[]): Promise<string> {
  const n = ++run;
  const original = await makePdf({ pages: 1, useObjectStreams: false });
  const source = path.join(dir, `in-${n}.pdf`);
  const output = path.join(dir, `out-${n}.pdf`);
  await writeFile(source, original);
  const half = Math.ceil(values.length / 2);
  const fields: FinalizeField[] = values.slice(0, half).map((v, i) => ({
    type: 'text',
    draw: 'text' as const,
    page: 1,
    x: 5,
    y: 10 + i * 5,
    width: 90,
    height: 4,
    value: v,
  }));
  const input = sampleInput(source, sha256(original), fields);
  const onCertificate = values.slice(half);
  input.document.name = onCertificate[0] ?? 'Document';
  input.signers = onCertificate.slice(1).map((v, i) => ({
    ...input.signers[i % 2],
    name: v,
    email: `s${i}@example.test`,
  }));
  await finalizePdf(input, cert, output, undefined, fonts);
  return output;
}

describe('text in any script survives sealing', () => {
  it.skipIf(!hasPoppler || !hasPdffonts)(
    'comes back from pdftotext in reading order, in embedded fonts',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(value, { minLength: 24, maxLength: 24 }), async (values) => {
          const output = await seal(values);
          const text = norm(
            poppler('pdftotext', [output, '-']).output.split('\n').map(asWritten).join('\n'),
          );
          // pdftotext may put a space between two right-to-left letters drawn as separate clusters.
          const joined = text.replace(/ /g, '');
          for (const v of values) {
            for (const w of norm(v).split(' ')) {
              if (!RTL.test(w)) expect(text).toContain(w);
              else for (const piece of directionalPieces(w)) expect(joined).toContain(piece);
            }
          }
          // Every font but the original page's own Helvetica (which is not Signet's to embed).
          const rows = poppler('pdffonts', [output])
            .output.trim()
            .split('\n')
            .slice(2)
            .filter((row) => !row.startsWith('Helvetica '));
          expect(rows.length).toBeGreaterThan(0);
          // Columns: name, type, encoding, emb, sub, uni, object ID.
          for (const row of rows)
            expect(row.split(/\s+/).slice(-5, -2)).toEqual(['yes', 'yes', 'yes']);
        }),
        {
          numRuns: 4,
          seed: Number(process.env.FC_SEED ?? Date.now() % 100000),
          // A variation selector drawn as a zero-advance space glyph once stretched "❤️" over the flag after it.
          examples: [
            [['ok 😀❤️🇫🇷', ...Array(11).fill('a'), 'ok 😀❤️🇫🇷', ...Array(11).fill('á')]],
            // Mostly right-to-left, so pdftotext takes the page for right-to-left (asWritten).
            [
              [
                'אאאאאאא אאאאאאאאאאאא',
                'o\u0327u\u0327',
                'ok 😀✅',
                'אב नं',
                ...Array(20).fill('אאאא a\u0327'),
              ],
            ],
            // After the two above, this loaded a slice just as harfbuzz's memory grew (test/pdf/font-metrics.test.ts).
            [
              [
                '山 京愛京學李中陈',
                'ok 👍🏽🚀😀🎉',
                'أصسآثعي أز ش 771 זסבץעאפ',
                '李李國京王李国 中愛 山京國山',
                '李學王北愛李 愛',
                'Üèć',
                'θπξσΩΩβ',
                'шЩу ощВЗ',
                'iuh DrsGY TuzzKyI',
                '京大陈北 李京愛山學學张 アキ',
                'o̧z̈ǒÊ',
                '张郎 陈郎 学',
                'मकेरखकीकीस गगखकग म',
                'NMElCvT',
                'ήόί',
                'エカ セつとセ',
                'गरसनंनन',
                'ة',
                '国田學',
                'طمعثدهد ت 9518823 צקפ',
                'قخسطلب',
                'uvPScyd HlTzWh',
                'فك',
                'ďńěæŁ İ',
              ],
            ],
          ],
        },
      );
    },
  );
});
