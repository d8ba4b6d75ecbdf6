import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningCertificate, type SigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizePdf, type FinalizeField, type FinalizeInput } from '../../src/pdf/finalize.ts';
import {
  checkSignature,
  hasPoppler,
  makePdf,
  poppler,
  sampleInput,
  sha256,
  signaturePngDataUrl,
} from './pdf-helpers.ts';

let dir: string;
let cert: SigningCertificate;
let png: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-pdf-'));
  cert = await loadSigningCertificate({
    dataDir: path.join(dir, 'data'),
    signingCertP12: undefined,
    signingCertPassword: undefined,
    generatedCertPassword: 'a-test-password',
  });
  png = await signaturePngDataUrl();
  if (!hasPoppler)
    console.warn(
      'pdfsig/pdftotext (Debian poppler-utils) not found: skipping the poppler assertions',
    );
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

let counter = 0;
async function finalize(
  original: Buffer,
  fields: FinalizeField[],
  tweak?: (input: FinalizeInput) => void,
) {
  const n = ++counter;
  const source = path.join(dir, `in-${n}.pdf`);
  const output = path.join(dir, `out-${n}.pdf`);
  await writeFile(source, original);
  const input = sampleInput(source, sha256(original), fields);
  tweak?.(input);
  const result = await finalizePdf(input, cert, output);
  return { result, output, signed: await readFile(output), input };
}

function expectPopplerValid(file: string) {
  if (!hasPoppler) return;
  const { output } = poppler('pdfsig', [file]);
  expect(output).toContain('Signature Validation: Signature is Valid.');
  expect(output).toContain('Total document signed');
  expect(output).toContain('Signature Type: ETSI.CAdES.detached');
}

function expectJsValid(signed: Buffer) {
  const check = checkSignature(signed);
  expect(check).toMatchObject({
    coversAllButContents: true,
    subFilter: 'ETSI.CAdES.detached',
    digestMatches: true,
    signatureValid: true,
    signingCertificateV2Matches: true,
  });
  expect(check.attributeOids.sort()).toEqual([
    '1.2.840.113549.1.9.16.2.47',
    '1.2.840.113549.1.9.3',
    '1.2.840.113549.1.9.4',
  ]);
  expect(check.certificateDer.equals(cert.chain[0])).toBe(true);
  return check;
}

/** Words of one page as pdftotext places them: display coordinates, origin top-left. */
function words(file: string, page: number) {
  const { output } = poppler('pdftotext', [
    '-bbox',
    '-f',
    String(page),
    '-l',
    String(page),
    file,
    '-',
  ]);
  return [
    ...output.matchAll(
      /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
    ),
  ].map((m) => ({
    x0: Number(m[1]),
    y0: Number(m[2]),
    x1: Number(m[3]),
    y1: Number(m[4]),
    text: m[5],
  }));
}

const standardFields = (pngUrl: string): FinalizeField[] => [
  {
    type: 'signature',
    draw: 'mark' as const,
    page: 1,
    x: 10,
    y: 70,
    width: 30,
    height: 8,
    value: 'Alice Martin',
  },
  {
    type: 'date',
    draw: 'text' as const,
    page: 1,
    x: 60,
    y: 72,
    width: 20,
    height: 4,
    value: '2025-03-04',
  },
  {
    type: 'checkbox',
    draw: 'tick' as const,
    page: 1,
    x: 10,
    y: 85,
    width: 4,
    height: 3,
    value: 'true',
  },
  {
    type: 'checkbox',
    draw: 'tick' as const,
    page: 1,
    x: 20,
    y: 85,
    width: 4,
    height: 3,
    value: 'false',
  },
  {
    type: 'text',
    draw: 'text' as const,
    page: 1,
    x: 10,
    y: 20,
    width: 60,
    height: 4,
    value: 'Company: Müller & Söhne GmbH, Lyon',
  },
  {
    type: 'signature',
    draw: 'mark' as const,
    page: 1,
    x: 50,
    y: 85,
    width: 30,
    height: 8,
    value: pngUrl,
  },
  {
    type: 'email',
    draw: 'text' as const,
    page: 1,
    x: 60,
    y: 60,
    width: 30,
    height: 4,
    value: null,
  },
];

describe('finalizePdf', () => {
  it.each([
    ['a classic xref table', false],
    ['an xref stream with object streams', true],
  ])('signs a one-page PDF with %s as an incremental update', async (_label, useObjectStreams) => {
    const original = await makePdf({ pages: 1, useObjectStreams });
    const { result, output, signed } = await finalize(original, standardFields(png));

    expect(result).toEqual({
      sha256: sha256(signed),
      size: signed.length,
      level: 'B-B',
      timestampExpiresAt: null,
    });
    // Incremental: every original byte is still there, unchanged, at the start.
    expect(signed.subarray(0, original.length).equals(original)).toBe(true);
    expect(signed.subarray(original.length).toString('latin1')).toMatch(
      useObjectStreams ? /\/Type\s*\/XRef/ : /\nxref\n/,
    );
    const check = expectJsValid(signed);
    expect(check.byteRange[0]).toBe(0);
    expect(check.byteRange[2] + check.byteRange[3]).toBe(signed.length);

    const reopened = await PDFDocument.load(signed);
    expect(reopened.getPageCount()).toBe(2);
    expectPopplerValid(output);

    if (hasPoppler) {
      const text = poppler('pdftotext', ['-layout', output, '-']).output;
      for (const expected of [
        'Original page 1',
        'Alice Martin',
        '2025-03-04',
        'Company: Müller & Söhne GmbH, Lyon',
        '✔',
        'Certificate of Completion',
        'Mutual NDA 2025',
        'doc_0123456789',
        '2025-03-04 10:20:30 UTC',
        sha256(original),
        'alice@example.test',
        'bob@example.test',
        'Approver', // the role as the certificate's language names it
        '203.0.113.7',
        '198.51.100.23',
        'Lyon, FR',
        '2025-03-04 09:00:00 UTC',
        'curl/8.5.0',
        'Signet document signing (self-signed)',
      ]) {
        expect(text).toContain(expected);
      }
      // One tick only: the "false" checkbox draws nothing.
      expect(text.split('✔').length).toBe(2);
      // The user agent is truncated on the certificate page.
      expect(text).toContain('C...');
      const images = poppler('pdfimages', ['-list', output]).output;
      expect(images).toMatch(/\n\s+1\s+\d+\s+image\s+120\s+40\s/);
    }
  });

  it('places values where the fields are on rotated and cropped pages', async () => {
    const original = await makePdf({
      pages: 20,
      useObjectStreams: true,
      rotate: (p) => [0, 90, 180, 270][p % 4],
      cropBox: (p) => (p === 4 ? [50, 100, 400, 500] : undefined),
    });
    const fields: FinalizeField[] = [];
    for (let page = 1; page <= 20; page++) {
      fields.push({
        type: 'text',
        draw: 'text' as const,
        page,
        x: 20,
        y: 30,
        width: 50,
        height: 5,
        value: `Marker${page}`,
      });
    }
    const { output, signed } = await finalize(original, fields);
    expectJsValid(signed);
    expect((await PDFDocument.load(signed)).getPageCount()).toBe(21);
    expectPopplerValid(output);
    if (!hasPoppler) return;

    for (let page = 1; page <= 20; page++) {
      const rotated = page % 2 === 1;
      // pdftotext measures from the media box's top-left: page 4's crop box starts 50 pt right, 242 pt down.
      const [w, h, dx, dy] =
        page === 4 ? [400, 500, 50, 242] : rotated ? [842, 595, 0, 0] : [595, 842, 0, 0];
      const word = words(output, page).find((x) => x.text === `Marker${page}`);
      expect(word, `page ${page}`).toBeDefined();
      // Left edge: the box's left plus the 2 pt padding; the word sits inside the box vertically.
      expect(word!.x0 - dx).toBeCloseTo(0.2 * w + 2, 0);
      expect(word!.y0 - dy).toBeGreaterThanOrEqual(0.3 * h - 0.5);
      expect(word!.y1 - dy).toBeLessThanOrEqual(0.35 * h + 0.5);
      // Upright: a horizontal word is wider than tall.
      expect(word!.x1 - word!.x0).toBeGreaterThan(word!.y1 - word!.y0);
    }
  });

  it('produces identical bytes when run twice on the same input (a retried job)', async () => {
    const original = await makePdf({ pages: 2, useObjectStreams: false });
    const first = await finalize(original, standardFields(png));
    const second = await finalize(original, standardFields(png));
    expect(second.signed.equals(first.signed)).toBe(true);
  });

  it('fails verification when any signed byte changes', async () => {
    const original = await makePdf({ pages: 1, useObjectStreams: false });
    const { signed } = await finalize(original, standardFields(png));
    const { byteRange } = checkSignature(signed);
    for (const offset of [150, original.length + 10, byteRange[2] + 5, signed.length - 3]) {
      const tampered = Buffer.from(signed);
      tampered[offset] ^= 0x01;
      expect(checkSignature(tampered).digestMatches, `offset ${offset}`).toBe(false);
      if (hasPoppler && offset === byteRange[2] + 5) {
        const file = path.join(dir, 'tampered.pdf');
        await writeFile(file, tampered);
        expect(poppler('pdfsig', [file]).output).not.toContain('Signature is Valid');
      }
    }
  });

  it('signs an already signed file again, keeping the first signature intact', async () => {
    const original = await makePdf({ pages: 3, useObjectStreams: true });
    const once = await finalize(original, standardFields(png));
    const twice = await finalize(
      once.signed,
      [
        {
          type: 'text',
          draw: 'text' as const,
          page: 2,
          x: 10,
          y: 10,
          width: 30,
          height: 5,
          value: 'Second round',
        },
      ],
      (input) => {
        input.document.id = 'doc_second';
      },
    );
    expect(twice.signed.subarray(0, once.signed.length).equals(once.signed)).toBe(true);
    expectJsValid(twice.signed);
    expect((await PDFDocument.load(twice.signed)).getPageCount()).toBe(5);
    if (hasPoppler) {
      const out = poppler('pdfsig', [twice.output]).output;
      expect(out).toContain('Signature #2');
      expect(out.match(/Signature is Valid/g)).toHaveLength(2);
      expect(poppler('pdftotext', [twice.output, '-']).output).toContain('Second round');
    }
  });

  it('continues the certificate on further pages when the signers do not fit on one', async () => {
    const original = await makePdf({ pages: 1, useObjectStreams: false });
    const { output, signed } = await finalize(original, [], (input) => {
      input.signers = Array.from({ length: 14 }, (_, i) => ({
        ...input.signers[0],
        name: `Person ${i + 1}`,
        email: `p${i + 1}@example.test`,
      }));
    });
    const pages = (await PDFDocument.load(signed)).getPageCount();
    expect(pages).toBeGreaterThan(2);
    expectJsValid(signed);
    expectPopplerValid(output);
    if (hasPoppler) {
      const text = poppler('pdftotext', [output, '-']).output;
      expect(text).toContain('Person 14');
      expect(text).toContain('p14@example.test');
      expect(text).toContain(`page ${pages - 1} of ${pages - 1}`);
      expect(text).toContain('Certificate of Completion (continued)');
    }
  });

  it('repairs a small file whose cross-reference offsets are broken, then signs it', async () => {
    const good = await makePdf({ pages: 2, useObjectStreams: false });
    const text = good.toString('latin1');
    const at = text.lastIndexOf('startxref');
    const broken = Buffer.from(`${text.slice(0, at)}startxref\n12\n%%EOF\n`, 'latin1');
    const { output, signed } = await finalize(broken, standardFields(png));
    expectJsValid(signed);
    expect((await PDFDocument.load(signed)).getPageCount()).toBe(3);
    expectPopplerValid(output);
  });

  it('rejects a field on a page the document does not have', async () => {
    const original = await makePdf({ pages: 2, useObjectStreams: false });
    await expect(
      finalize(original, [
        {
          type: 'text',
          draw: 'text' as const,
          page: 3,
          x: 1,
          y: 1,
          width: 10,
          height: 5,
          value: 'x',
        },
      ]),
    ).rejects.toThrow(/page 3, but the document has 2 pages/);
  });

  it('rejects a drawn signature that is not an image data URL', async () => {
    const original = await makePdf({ pages: 1, useObjectStreams: false });
    await expect(
      finalize(original, [
        {
          type: 'signature',
          draw: 'mark' as const,
          page: 1,
          x: 1,
          y: 1,
          width: 10,
          height: 5,
          value: 'data:text/html;base64,PGI+',
        },
      ]),
    ).rejects.toThrow(/PNG or JPEG data URL/);
  });
});
