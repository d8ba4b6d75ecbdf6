import { readFile } from 'node:fs/promises';
import * as hb from 'harfbuzzjs';
import decompressWoff2 from 'wawoff2/decompress.js';
import { FAMILIES, type FamilyId, readSlices, type Slice } from './families.ts';

/**
 * The fonts of one process, loaded the first time a document needs them and kept for the next.
 * Only slices a text needs are read: a Latin document loads two Noto Sans files, a Japanese name
 * adds the few CJK slices that hold its characters. The owner (the sealing worker) creates one
 * `FontCache` and hands it to every sealing; nothing here is module-global.
 */

export type Weight = 400 | 700;

export interface FaceMetrics {
  unitsPerEm: number;
  ascender: number;
  descender: number;
  capHeight: number;
  /** xMin, yMin, xMax, yMax in font units. */
  bbox: [number, number, number, number];
}

/** One slice, decoded and ready to shape with. */
export interface LoadedSlice {
  slice: Slice;
  /** The slice as a TrueType/OpenType file (decoded from WOFF2). */
  sfnt: Uint8Array;
  face: hb.Face;
  metrics: FaceMetrics;
  /** A shaping font per weight (one file is both weights when the family is variable). */
  font(weight: Weight): hb.Font;
  /** The glyph for a code point, or 0 when the slice has none. */
  glyph(codePoint: number): number;
  /** A mark (an accent, a vowel sign, the dots of an Arabic letter), by the font's own classes. */
  isMark(gid: number): boolean;
}

/** Decoded fonts kept at most (bytes of decoded files), checked between documents. */
const DEFAULT_BUDGET_BYTES = 96 * 1024 * 1024;

export class FontCache {
  private readonly slices = new Map<FamilyId, Slice[]>();
  private readonly loaded = new Map<string, LoadedSlice>();
  private readonly loading = new Map<string, Promise<LoadedSlice>>();
  /** When each slice was last used (a counter), for eviction. */
  private readonly used = new Map<string, number>();
  private clock = 0;

  constructor(private readonly budgetBytes = DEFAULT_BUDGET_BYTES) {}

  /** The slices of `family` whose declared range holds `codePoint` (usually one). */
  candidates(family: FamilyId, codePoint: number): Slice[] {
    const out: Slice[] = [];
    for (const slice of this.slicesOf(family)) {
      if (inRanges(slice.ranges, codePoint)) out.push(slice);
    }
    return out;
  }

  /** The slice when it is loaded (drawing is synchronous: `load` runs before it). */
  get(slice: Slice): LoadedSlice | undefined {
    const hit = this.loaded.get(slice.file);
    if (hit) this.used.set(slice.file, ++this.clock);
    return hit;
  }

  /** Loads these slices (decoding each file once per process). */
  async load(slices: Iterable<Slice>): Promise<void> {
    this.evictOverBudget();
    const pending: Promise<LoadedSlice>[] = [];
    for (const slice of slices) {
      if (this.loaded.has(slice.file)) continue;
      let p = this.loading.get(slice.file);
      if (!p) {
        p = loadSlice(slice).then((done) => {
          this.loaded.set(slice.file, done);
          return done;
        });
        p.finally(() => this.loading.delete(slice.file)).catch(() => {});
        this.loading.set(slice.file, p);
      }
      pending.push(p);
    }
    await Promise.all(pending);
  }

  /**
   * Loads what nearly every document draws (the Latin slices of the body, heading, hash and
   * typed-signature faces, the tick's symbols) and runs the shaper once, so the first sealing
   * after a start does not pay for decoding and the WebAssembly's first calls.
   */
  async warm(): Promise<void> {
    const slices = [
      ...(['sans', 'mono', 'script'] as const).flatMap((f) => this.candidates(f, 0x41)),
      ...this.candidates('symbols', 0x2714),
    ];
    await this.load(slices);
    for (const slice of slices) {
      const loaded = this.get(slice);
      const buffer = new hb.Buffer();
      buffer.addText('Signet 0123');
      buffer.guessSegmentProperties();
      if (loaded) hb.shape(loaded.font(400), buffer);
    }
  }

  /** Bytes of decoded fonts held. */
  get size(): number {
    let total = 0;
    for (const s of this.loaded.values()) total += s.sfnt.byteLength;
    return total;
  }

  private slicesOf(family: FamilyId): Slice[] {
    let list = this.slices.get(family);
    if (!list) {
      list = readSlices(family);
      this.slices.set(family, list);
    }
    return list;
  }

  /** Before a document loads its fonts, the least recently used beyond the budget go. */
  private evictOverBudget(): void {
    let total = this.size;
    if (total <= this.budgetBytes) return;
    const oldestFirst = [...this.loaded.keys()].sort(
      (a, b) => (this.used.get(a) ?? 0) - (this.used.get(b) ?? 0),
    );
    for (const key of oldestFirst) {
      if (total <= this.budgetBytes) break;
      total -= this.loaded.get(key)?.sfnt.byteLength ?? 0;
      this.loaded.delete(key);
      this.used.delete(key);
    }
  }
}

function inRanges(ranges: Array<[number, number]>, cp: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = ranges[mid];
    if (cp < first) hi = mid - 1;
    else if (cp > last) lo = mid + 1;
    else return true;
  }
  return false;
}

async function loadSlice(slice: Slice): Promise<LoadedSlice> {
  const sfnt = new Uint8Array(await decompressWoff2(await readFile(slice.file)));
  const face = new hb.Face(new hb.Blob(sfnt));
  const metrics = readMetrics(face);
  const variable = FAMILIES[slice.family].variable;
  const fonts = new Map<Weight, hb.Font>();
  const font = (weight: Weight): hb.Font => {
    const w: Weight = variable ? weight : 400;
    let f = fonts.get(w);
    if (!f) {
      f = new hb.Font(face);
      if (variable) f.setVariations([new hb.Variation('wght', w)]);
      fonts.set(w, f);
    }
    return f;
  };
  const plain = font(400);
  return {
    slice,
    sfnt,
    face,
    metrics,
    font,
    glyph: (cp) => plain.nominalGlyph(cp) ?? 0,
    isMark: (gid) => face.getGlyphClass(gid) === hb.GlyphClass.MARK,
  };
}

/**
 * The PDF font descriptor's figures, from `head`, `hhea` and `OS/2`. harfbuzzjs hands a table back
 * as a view of its WebAssembly memory, and the next call may grow that memory, which detaches
 * every view taken before: each table is copied out before the next is asked for.
 */
export function readMetrics(face: Pick<hb.Face, 'referenceTable' | 'upem'>): FaceMetrics {
  const table = (tag: string): DataView | undefined => {
    const view = face.referenceTable(tag);
    return view && new DataView(view.slice().buffer);
  };
  const h = table('head');
  const o = table('OS/2');
  const hh = table('hhea');
  if (!h || !hh) throw new Error('a font without head or hhea table');
  const ascender = hh.getInt16(4);
  const capHeight = o && o.getUint16(0) >= 2 && o.byteLength >= 90 ? o.getInt16(88) : ascender;
  return {
    unitsPerEm: face.upem,
    ascender,
    descender: hh.getInt16(6),
    capHeight,
    bbox: [h.getInt16(36), h.getInt16(38), h.getInt16(40), h.getInt16(42)],
  };
}
