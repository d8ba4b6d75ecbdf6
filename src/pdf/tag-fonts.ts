import { Encodings, Font, FontNames } from '@pdf-lib/standard-fonts';
import { stringBytes } from './content-ops.ts';
import type { PdfFile } from './reader.ts';
import { isDict, isName, PdfStream, type PdfDict, type PdfValue } from './syntax.ts';

/**
 * What reading and removing text needs of a font: how its strings split into character codes,
 * the text each code stands for, and each code's advance (glyph space, thousandths of the size).
 * Simple fonts: one byte per code, text from /ToUnicode, else /Differences glyph names, else
 * WinAnsi; widths from /Widths, else the standard 14 fonts' metrics. Composite (Type0) fonts:
 * two bytes per code (Identity-H and the like), text from /ToUnicode, widths from /W and /DW.
 */
export interface TextFont {
  bytesPerCode: 1 | 2;
  text(code: number): string;
  width(code: number): number;
  /** Top of the glyphs above the baseline, in text space per unit of font size. */
  ascent: number;
}

// WinAnsi read backwards: code → [Unicode code point, glyph name].
const WIN_ANSI = new Map<number, [number, string]>();
for (const cp of Encodings.WinAnsi.supportedCodePoints) {
  const { code, name } = Encodings.WinAnsi.encodeUnicodeCodePoint(cp);
  if (!WIN_ANSI.has(code)) WIN_ANSI.set(code, [cp, name]);
}
const NAMED: Record<string, string> = {};
for (const [cp, name] of WIN_ANSI.values()) NAMED[name] = String.fromCodePoint(cp);

/** The text of a glyph name (`braceleft`, `a`, `uni007B`), or '' when unknown. */
function glyphText(name: string): string {
  if (name in NAMED) return NAMED[name];
  const uni = /^uni([0-9A-Fa-f]{4})$/.exec(name) ?? /^u([0-9A-Fa-f]{4,6})$/.exec(name);
  return uni ? String.fromCodePoint(Number.parseInt(uni[1], 16)) : '';
}

const STANDARD: Record<string, FontNames> = {};
for (const n of Object.values(FontNames)) STANDARD[n] = n;
const metricsCache = new Map<FontNames, Font>();
function standardMetrics(base: string): Font {
  const plain = base.replace(/^[A-Z]{6}\+/, '');
  const key =
    STANDARD[plain] ??
    (/courier/i.test(plain)
      ? FontNames.Courier
      : /times/i.test(plain)
        ? FontNames.TimesRoman
        : FontNames.Helvetica);
  const font = metricsCache.get(key) ?? Font.load(key);
  metricsCache.set(key, font);
  return font;
}

const num = (file: PdfFile, v: PdfValue | undefined) => {
  const r = file.resolve(v);
  return typeof r === 'number' ? r : undefined;
};

/** The code → text map of a /ToUnicode CMap (bfchar and bfrange), and its code width. */
function readToUnicode(file: PdfFile, v: PdfValue | undefined) {
  const stream = file.resolve(v);
  if (!(stream instanceof PdfStream)) return undefined;
  const src = file.streamData(stream).toString('latin1');
  const map = new Map<number, string>();
  const utf16 = (hex: string) => {
    const b = Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
    return b.length % 2 ? '' : Buffer.from(b).swap16().toString('utf16le');
  };
  let bytes = 1;
  const space = /begincodespacerange\s*<([0-9a-fA-F]+)>/.exec(src);
  if (space && space[1].length >= 4) bytes = 2;
  for (const block of src.matchAll(/beginbfchar([\s\S]*?)endbfchar/g))
    for (const m of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]*)>/g)) {
      map.set(Number.parseInt(m[1], 16), utf16(m[2]));
      if (m[1].length >= 4) bytes = 2;
    }
  for (const block of src.matchAll(/beginbfrange([\s\S]*?)endbfrange/g))
    for (const m of block[1].matchAll(
      /<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(<[0-9a-fA-F]*>|\[[^\]]*\])/g,
    )) {
      const lo = Number.parseInt(m[1], 16);
      const hi = Math.min(Number.parseInt(m[2], 16), lo + 0xffff);
      if (m[1].length >= 4) bytes = 2;
      if (m[3].startsWith('[')) {
        const list = [...m[3].matchAll(/<([0-9a-fA-F]*)>/g)];
        list.forEach((h, k) => {
          if (lo + k <= hi) map.set(lo + k, utf16(h[1]));
        });
        continue;
      }
      const first = utf16(m[3].slice(1, -1));
      if (!first) continue;
      const last = first.charCodeAt(first.length - 1);
      for (let c = lo; c <= hi; c++)
        map.set(c, first.slice(0, -1) + String.fromCharCode(last + (c - lo)));
    }
  return { map, bytes: bytes as 1 | 2 };
}

function ascentOf(file: PdfFile, descriptor: PdfValue | undefined, fallback?: number): number {
  const d = file.resolve(descriptor);
  const a = isDict(d) ? num(file, d.get('Ascent')) : fallback;
  return a && a > 300 && a < 1200 ? a / 1000 : 0.8;
}

/** The Type0 font's /W widths and /DW default. */
function cidWidths(file: PdfFile, cid: PdfDict) {
  const dw = num(file, cid.get('DW')) ?? 1000;
  const widths = new Map<number, number>();
  const w = file.resolve(cid.get('W'));
  if (Array.isArray(w)) {
    for (let i = 0; i < w.length && widths.size < 70_000; ) {
      const first = num(file, w[i]);
      const next = file.resolve(w[i + 1]);
      if (first === undefined) break;
      if (Array.isArray(next)) {
        next.forEach((x, k) => {
          widths.set(first + k, num(file, x) ?? dw);
        });
        i += 2;
      } else {
        const last = Math.min(num(file, next) ?? first, first + 70_000);
        const width = num(file, w[i + 2]) ?? dw;
        for (let c = first; c <= last; c++) widths.set(c, width);
        i += 3;
      }
    }
  }
  return (code: number) => widths.get(code) ?? dw;
}

/** The font dictionary read for text (see TextFont). */
export function readTextFont(file: PdfFile, fontDict: PdfDict): TextFont {
  const toUnicode = readToUnicode(file, fontDict.get('ToUnicode'));
  if (isName(file.resolve(fontDict.get('Subtype')), 'Type0')) {
    const kids = file.resolve(fontDict.get('DescendantFonts'));
    const cid = Array.isArray(kids) ? file.resolve(kids[0]) : undefined;
    const width = isDict(cid) ? cidWidths(file, cid) : () => 1000;
    const desc = isDict(cid) ? cid.get('FontDescriptor') : undefined;
    return {
      bytesPerCode: 2,
      text: (code) => toUnicode?.map.get(code) ?? '',
      width,
      ascent: ascentOf(file, desc),
    };
  }
  const names = new Map<number, string>();
  const encoding = file.resolve(fontDict.get('Encoding'));
  const differences = isDict(encoding) ? file.resolve(encoding.get('Differences')) : undefined;
  if (Array.isArray(differences)) {
    let code = 0;
    for (const d of differences.slice(0, 4096)) {
      const v = file.resolve(d);
      if (typeof v === 'number') code = v;
      else if (isName(v)) names.set(code++, v.raw);
    }
  }
  const base = file.resolve(fontDict.get('BaseFont'));
  const firstChar = num(file, fontDict.get('FirstChar')) ?? 0;
  const widths = file.resolve(fontDict.get('Widths'));
  const metrics = Array.isArray(widths) ? undefined : standardMetrics(isName(base) ? base.raw : '');
  const glyphName = (code: number) => names.get(code) ?? WIN_ANSI.get(code)?.[1] ?? '';
  return {
    bytesPerCode: 1,
    text: (code) => {
      const mapped = toUnicode?.map.get(code);
      if (mapped !== undefined) return mapped;
      const named = names.get(code);
      if (named !== undefined) return glyphText(named);
      const cp = WIN_ANSI.get(code)?.[0];
      return cp === undefined ? '' : String.fromCodePoint(cp);
    },
    width: (code) =>
      Array.isArray(widths)
        ? (num(file, widths[code - firstChar]) ?? 0)
        : ((metrics?.getWidthOfGlyph(glyphName(code)) as number | undefined) ?? 0),
    ascent: ascentOf(file, fontDict.get('FontDescriptor'), metrics?.Ascender ?? undefined),
  };
}

/** The codes of a string operand shown in `font`. */
export function codesOf(raw: string, font: TextFont): number[] {
  const bytes = stringBytes(raw);
  const codes: number[] = [];
  if (font.bytesPerCode === 1) for (const b of bytes) codes.push(b);
  else for (let i = 0; i + 1 < bytes.length; i += 2) codes.push(bytes.readUInt16BE(i));
  return codes;
}
