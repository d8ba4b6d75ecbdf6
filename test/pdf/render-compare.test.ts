import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FamilyId, FAMILIES, readSlices } from '../../src/fonts/families.ts';
import { FontCache } from '../../src/fonts/font-cache.ts';
import { loadSigningCertificate, type SigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizePdf } from '../../src/pdf/finalize.ts';
import {
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  type TestBrowser,
} from '../helpers/browser.ts';
import { makePdf, sampleInput, sha256 } from './pdf-helpers.ts';

/*
 * The oracle is Chromium (HarfBuzz shaping, Skia drawing), not the code under test: a value is
 * sealed into a PDF and rendered by poppler (pdftoppm), the same string is rendered by Chromium in
 * the same font files at the same scale, and the two pictures of ink must match: same size within
 * a few pixels, and most of one's ink on the other's. Reversed Arabic, unjoined letters, a wrong
 * Han face or a missing accent would each fail it.
 */

const hasPdftoppm = spawnSync('pdftoppm', ['-v']).status === 0;
if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

/** Points to pixels: pdftoppm at 288 dpi, Chromium at font-size 4 px per point. */
const SCALE = 4;
const SIZE = 14; // the size a 14 pt-capped field of this height draws its value at
const PAGE = { width: 595, height: 842 };
const BOX = { x: 10, y: 40, width: 80, height: 5 }; // percent of the page

const CASES: Array<{ label: string; value: string; families: FamilyId[] }> = [
  { label: 'Arabic', value: 'محمد علي الحسيني', families: ['arabic', 'sans'] },
  { label: 'Hebrew', value: 'שלום עולם ומלואו', families: ['hebrew', 'sans'] },
  { label: 'Japanese', value: 'やまだ 太郎です', families: ['han-ja', 'sans'] },
  { label: 'Polish', value: 'Zażółć gęślą jaźń', families: ['sans'] },
];

interface Ink {
  width: number;
  height: number;
  /** Ink pixels (darker than mid-grey), row by row, within the ink's bounding box. */
  mask: Uint8Array;
}

async function inkOf(image: Buffer): Promise<Ink> {
  const { data, info } = await sharp(image)
    .flatten({ background: '#ffffff' })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let [x0, y0, x1, y1] = [info.width, info.height, -1, -1];
  for (let y = 0; y < info.height; y++)
    for (let x = 0; x < info.width; x++)
      if (data[y * info.width + x] < 128) {
        x0 = Math.min(x0, x);
        y0 = Math.min(y0, y);
        x1 = Math.max(x1, x);
        y1 = Math.max(y1, y);
      }
  const width = x1 - x0 + 1;
  const height = y1 - y0 + 1;
  const mask = new Uint8Array(Math.max(0, width * height));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      mask[y * width + x] = data[(y + y0) * info.width + x + x0] < 128 ? 1 : 0;
  return { width, height, mask };
}

/** Share of the ink the two pictures have in common, aligned on their top-left corner. */
function overlap(a: Ink, b: Ink): number {
  let both = 0;
  let either = 0;
  const w = Math.max(a.width, b.width);
  const h = Math.max(a.height, b.height);
  const at = (i: Ink, x: number, y: number) =>
    x < i.width && y < i.height ? i.mask[y * i.width + x] : 0;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const p = at(a, x, y);
      const q = at(b, x, y);
      both += p & q;
      either += p | q;
    }
  return both / Math.max(either, 1);
}

/** Dilated by a pixel, so anti-aliasing that falls on either side of the threshold does not count. */
function dilate(i: Ink): Ink {
  const mask = new Uint8Array(i.mask.length);
  for (let y = 0; y < i.height; y++)
    for (let x = 0; x < i.width; x++) {
      let on = 0;
      for (let dy = -1; dy <= 1 && !on; dy++)
        for (let dx = -1; dx <= 1 && !on; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx >= 0 && yy >= 0 && xx < i.width && yy < i.height) on = i.mask[yy * i.width + xx];
        }
      mask[y * i.width + x] = on;
    }
  return { ...i, mask };
}

let dir: string;
let cert: SigningCertificate;
let browser: TestBrowser;
const fonts = new FontCache();

describe.skipIf(!hasChromium || !hasPdftoppm)('sealed text drawn as Chromium draws it', () => {
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'signet-render-'));
    cert = await loadSigningCertificate({
      dataDir: path.join(dir, 'data'),
      signingCertP12: undefined,
      signingCertPassword: undefined,
      generatedCertPassword: 'a-test-password',
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(CASES)(
    '$label',
    async ({ label, value, families }) => {
      // Through the sealer, as a text field's value.
      const original = await makePdf({ pages: 1, useObjectStreams: false });
      const source = path.join(dir, `${label}.pdf`);
      const output = path.join(dir, `${label}-signed.pdf`);
      await writeFile(source, original);
      await finalizePdf(
        sampleInput(source, sha256(original), [
          { type: 'text', draw: 'text' as const, page: 1, ...BOX, value },
        ]),
        cert,
        output,
        undefined,
        fonts,
      );
      const crop = [
        Math.round((BOX.x / 100) * PAGE.width * SCALE),
        Math.round((BOX.y / 100) * PAGE.height * SCALE),
        Math.round((BOX.width / 100) * PAGE.width * SCALE),
        Math.round((BOX.height / 100) * PAGE.height * SCALE),
      ];
      const prefix = path.join(dir, label);
      const run = spawnSync('pdftoppm', [
        '-r',
        String(72 * SCALE),
        '-f',
        '1',
        '-l',
        '1',
        '-png',
        '-singlefile',
        '-x',
        String(crop[0]),
        '-y',
        String(crop[1]),
        '-W',
        String(crop[2]),
        '-H',
        String(crop[3]),
        output,
        prefix,
      ]);
      expect(run.status, run.stderr?.toString()).toBe(0);
      const sealed = await inkOf(await readFile(`${prefix}.png`));

      // Chromium, with the same font files, tried in the same order.
      const faces = families.flatMap((family) =>
        readSlices(family).map(
          (s) =>
            `@font-face{font-family:"T ${family}";src:url("data:font/woff2;base64,${fs.readFileSync(s.file).toString('base64')}");unicode-range:${s.ranges.map(([a, b]) => `U+${a.toString(16)}-${b.toString(16)}`).join(',')}}`,
        ),
      );
      const list = families.map((f) => `"T ${f}"`).join(',');
      const page = await browser.newPage({ width: 2400, height: 400 });
      await page.setContent(
        `<style>${faces.join('\n')} body{margin:40px;background:#fff}
       p{font:${SIZE * SCALE}px ${list};margin:0;white-space:nowrap;display:inline-block;color:#000}</style>
       <p dir="auto">${value}</p>`,
      );
      await page.evaluate(() => document.fonts.ready);
      const browserInk = await inkOf(await page.locator('p').screenshot());
      await page.close();

      const what = `${label} (${FAMILIES[families[0]].name}): poppler ${sealed.width}x${sealed.height}, Chromium ${browserInk.width}x${browserInk.height}`;
      expect(Math.abs(sealed.width - browserInk.width), what).toBeLessThanOrEqual(4);
      expect(Math.abs(sealed.height - browserInk.height), what).toBeLessThanOrEqual(4);
      expect(overlap(dilate(sealed), dilate(browserInk)), what).toBeGreaterThan(0.8);
    },
    60_000,
  );
});
