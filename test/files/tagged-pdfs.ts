import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/*
 * PDFs with text tags for the tag tests, written object by object so each case controls its
 * content streams exactly: plain `Tj`, `TJ` arrays with kerning inside a tag, a tag split over
 * several operators and lines of code, a tag inside a form XObject, and a composite (Type0,
 * Identity-H) font whose codes are two bytes.
 */

type Obj = string | { dict: string; data: string };

/** A PDF of these objects (object 1 is the catalog), with a classic cross-reference table. */
export function rawPdf(objects: Obj[]): Buffer {
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    const body =
      typeof o === 'string'
        ? o
        : `<<${o.dict} /Length ${Buffer.byteLength(o.data, 'latin1')}>>\nstream\n${o.data}\nendstream`;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const HELVETICA =
  '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/**
 * One 612 × 792 page: a `TJ` array with kerning inside `{{initials:1}}`, a tag split over three
 * `Tj` operators (and a `'`), and a form XObject drawing `{{date:2}}`; every tag shares its line
 * with words that must stay.
 */
export function operatorsPdf(): Buffer {
  const content = [
    'BT /F1 12 Tf 72 700 Td',
    '[(Initials: ) -20 ({{ini) 35 (tials:1}}) -10 ( end of line)] TJ',
    'ET',
    'BT /F1 12 Tf 72 650 Td 14 TL',
    '(Name: ) Tj ({{te) Tj (xt:2;label=Full ) Tj',
    '(name}} after) Tj',
    "(Next line) '",
    'ET',
    'q 1 0 0 1 72 500 cm /Fm1 Do Q',
  ].join('\n');
  const form = 'BT /F1 10 Tf 0 0 Td (Dated {{date:2}} here) Tj ET';
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /Fm1 6 0 R >> >> >>',
    { dict: '', data: content },
    HELVETICA,
    {
      dict: '/Type /XObject /Subtype /Form /BBox [0 0 300 50] /Resources << /Font << /F1 5 0 R >> >>',
      data: form,
    },
  ]);
}

/**
 * A tag inside a marked-content span whose /ActualText stands for its glyphs (inline, and named
 * in the resources' /Properties), beside a plain tag: text extractors read the ActualText, so
 * removing the glyphs would not remove the tag from the extracted text.
 */
export function actualTextPdf(): Buffer {
  const content = [
    'BT /F1 12 Tf 72 700 Td (Plain {{signature:1}} tag) Tj ET',
    '/Span << /ActualText ({{initials:1}}) >> BDC',
    'BT /F1 12 Tf 72 650 Td ({{initials:1}}) Tj ET',
    'EMC',
    '/Span /P1 BDC BT /F1 12 Tf 72 600 Td ({{date:1}}) Tj ET EMC',
  ].join('\n');
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /Properties << /P1 << /ActualText ({{date:1}}) >> >> >> >>',
    { dict: '', data: content },
    HELVETICA,
  ]);
}

/** Code of a character in the composite font: two bytes, 0x01 then its ASCII code. */
const cid = (text: string) =>
  `<${[...text].map((c) => `01${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}>`;

/** A page drawn with a Type0 font (Identity-H, two-byte codes, /W widths, a ToUnicode CMap). */
export function cidPdf(): Buffer {
  const toUnicode = [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CMapName /Test-UCS def /CMapType 2 def',
    '1 begincodespacerange <0000> <FFFF> endcodespacerange',
    '1 beginbfrange <0120> <017E> <0020> endbfrange',
    'endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
  const content = `BT /F2 14 Tf 72 700 Td [${cid('Sign ')} ${cid('{{signature:1}}')} ${cid(' thanks')}] TJ ET`;
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F2 5 0 R >> >> >>',
    { dict: '', data: content },
    '<< /Type /Font /Subtype /Type0 /BaseFont /TestSans /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>',
    '<< /Type /Font /Subtype /CIDFontType2 /BaseFont /TestSans /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 600 /W [288 [278] 379 [500]] /FontDescriptor 8 0 R >>',
    { dict: '', data: toUnicode },
    '<< /Type /FontDescriptor /FontName /TestSans /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 750 /Descent -250 /CapHeight 700 /StemV 80 >>',
  ]);
}

/** A page with `count` tags drawn by pdf-lib in Helvetica, `perPage` to a page. */
export async function manyTagsPdf(count: number, perPage = 40): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < count; i += perPage) {
    const page = pdf.addPage([612, 792]);
    for (let k = 0; k < perPage && i + k < count; k++)
      page.drawText(`Line ${i + k} {{text:1}}`, {
        x: 40 + (k % 2) * 280,
        y: 760 - Math.floor(k / 2) * 18,
        size: 9,
        font,
      });
  }
  return Buffer.from(await pdf.save());
}

const run = promisify(execFile);

/** The text poppler's pdftotext extracts, or null when poppler is not installed. */
export async function pdftotext(bytes: Buffer): Promise<string | null> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'signet-pdftotext-'));
  try {
    const file = path.join(dir, 'in.pdf');
    await writeFile(file, bytes);
    const { stdout } = await run('pdftotext', ['-layout', file, '-']);
    return stdout;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Each word's box (xMin, yMin) as pdftotext -bbox gives it (the first of repeated words). */
export async function wordBoxes(bytes: Buffer): Promise<Map<string, [number, number]> | null> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'signet-pdftotext-'));
  try {
    const file = path.join(dir, 'in.pdf');
    await writeFile(file, bytes);
    const { stdout } = await run('pdftotext', ['-bbox', file, '-']);
    const words = new Map<string, [number, number]>();
    for (const m of stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g))
      if (!words.has(m[3])) words.set(m[3], [Number(m[1]), Number(m[2])]);
    return words;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
