import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { FAMILIES } from '../fonts/families.ts';
import type { LoadedSlice, Weight } from '../fonts/font-cache.ts';
import { subsetFont, subsetter } from '../fonts/subset.ts';
import { dict, name, type PdfRef, PdfStream, type PdfValue, pdfText } from './syntax.ts';

/**
 * The fonts one sealing embeds: each font slice drawn becomes a Type0 font with an Identity-H
 * encoding over a CIDFontType2 (TrueType outlines), whose CIDs are the slice's own glyph ids.
 * Only the glyphs drawn are embedded (a subset, named `ABCDEF+Family` as the PDF specification
 * asks), with their widths (/W) and a ToUnicode map from each glyph to the text it draws.
 */

interface UsedFont {
  ref: PdfRef;
  resource: string;
  slice: LoadedSlice;
  weight: Weight;
  /** Advance of each glyph drawn (1/1000 em), as /W states it and the content stream relies on. */
  widths: Map<number, number>;
  /** The text each glyph stands for (its first use wins). */
  text: Map<number, string>;
}

export interface FontUse {
  resource: string;
  ref: PdfRef;
  /** The glyph's advance as /W gives it: the content stream corrects from this. */
  width(gid: number): number;
  /** Notes a glyph as drawn, and the text it stands for ('' for the rest of a cluster). */
  record(gid: number, text: string): void;
}

export class PdfFonts {
  private readonly used = new Map<string, UsedFont>();

  constructor(private readonly alloc: () => PdfRef) {}

  /** The font of a slice at a weight, embedded once however many lines use it. */
  use(slice: LoadedSlice, weight: Weight): FontUse {
    const w: Weight = FAMILIES[slice.slice.family].variable ? weight : 400;
    const key = `${slice.slice.file}\n${w}`;
    let font = this.used.get(key);
    if (!font) {
      font = {
        ref: this.alloc(),
        resource: `SgF${this.used.size + 1}`,
        slice,
        weight: w,
        widths: new Map(),
        text: new Map(),
      };
      this.used.set(key, font);
    }
    const f = font;
    const hbFont = slice.font(w);
    const scale = 1000 / slice.metrics.unitsPerEm;
    return {
      resource: f.resource,
      ref: f.ref,
      width(gid) {
        let width = f.widths.get(gid);
        if (width === undefined) {
          width = Math.round(hbFont.glyphHAdvance(gid) * scale * 100) / 100;
          f.widths.set(gid, width);
        }
        return width;
      },
      record(gid, text) {
        this.width(gid);
        if (text && !f.text.has(gid)) f.text.set(gid, text);
      },
    };
  }

  /** The font objects, once every page is drawn (each subset holds exactly the glyphs used). */
  async objects(): Promise<Array<{ ref: PdfRef; value: PdfValue }>> {
    if (this.used.size === 0) return [];
    const api = await subsetter();
    const out: Array<{ ref: PdfRef; value: PdfValue }> = [];
    for (const font of this.used.values()) {
      const gids = [...font.widths.keys()].sort((a, b) => a - b);
      const variable = FAMILIES[font.slice.slice.family].variable;
      const program = subsetFont(api, font.slice.sfnt, [0, ...gids], variable ? font.weight : null);
      const spec = FAMILIES[font.slice.slice.family];
      // A subset tag derived from what it holds, so the same document gives the same bytes.
      const digest = createHash('sha256')
        .update(`${font.slice.slice.file}\n${font.weight}\n${gids.join(',')}`)
        .digest();
      const tag = [...digest.subarray(0, 6)]
        .map((b) => String.fromCharCode(65 + (b % 26)))
        .join('');
      const baseName = `${tag}+${spec.name.replace(/\s+/g, '')}-${font.weight === 700 ? 'Bold' : 'Regular'}`;
      const m = font.slice.metrics;
      const k = 1000 / m.unitsPerEm;
      const fileRef = this.alloc();
      const descriptorRef = this.alloc();
      const cidRef = this.alloc();
      const toUnicodeRef = this.alloc();
      out.push(
        {
          ref: fileRef,
          value: new PdfStream(
            dict({ Length1: program.byteLength, Filter: name('FlateDecode') }),
            deflateSync(program),
          ),
        },
        {
          ref: descriptorRef,
          value: dict({
            Type: name('FontDescriptor'),
            FontName: name(baseName),
            Flags: 4,
            FontBBox: m.bbox.map((v) => Math.round(v * k)),
            ItalicAngle: 0,
            Ascent: Math.round(m.ascender * k),
            Descent: Math.round(m.descender * k),
            CapHeight: Math.round(m.capHeight * k),
            StemV: font.weight === 700 ? 120 : 80,
            FontFile2: fileRef,
          }),
        },
        {
          ref: cidRef,
          value: dict({
            Type: name('Font'),
            Subtype: name('CIDFontType2'),
            BaseFont: name(baseName),
            CIDSystemInfo: dict({
              Registry: pdfText('Adobe'),
              Ordering: pdfText('Identity'),
              Supplement: 0,
            }),
            FontDescriptor: descriptorRef,
            W: widthArray(font.widths),
            CIDToGIDMap: name('Identity'),
          }),
        },
        {
          ref: toUnicodeRef,
          value: new PdfStream(
            dict({ Filter: name('FlateDecode') }),
            deflateSync(Buffer.from(toUnicodeCMap(font.text), 'latin1')),
          ),
        },
        {
          ref: font.ref,
          value: dict({
            Type: name('Font'),
            Subtype: name('Type0'),
            BaseFont: name(baseName),
            Encoding: name('Identity-H'),
            DescendantFonts: [cidRef],
            ToUnicode: toUnicodeRef,
          }),
        },
      );
    }
    return out;
  }
}

/** `[first [w w w] first [w]]`: runs of consecutive glyph ids share one array. */
function widthArray(widths: Map<number, number>): PdfValue {
  const out: PdfValue[] = [];
  let run: number[] = [];
  let first = -1;
  let previous = -2;
  for (const gid of [...widths.keys()].sort((a, b) => a - b)) {
    if (gid !== previous + 1 && run.length) {
      out.push(first, run);
      run = [];
    }
    if (!run.length) first = gid;
    run.push(widths.get(gid) ?? 0);
    previous = gid;
  }
  if (run.length) out.push(first, run);
  return out;
}

const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
const utf16Hex = (text: string) =>
  Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase();

/** A ToUnicode CMap (bfchar entries, at most 100 per block as the format requires). */
function toUnicodeCMap(text: Map<number, string>): string {
  const entries = [...text].sort(([a], [b]) => a - b);
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const block = entries.slice(i, i + 100);
    blocks.push(
      `${block.length} beginbfchar\n${block.map(([gid, t]) => `<${hex4(gid)}> <${utf16Hex(t)}>`).join('\n')}\nendbfchar`,
    );
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <FFFF>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}
