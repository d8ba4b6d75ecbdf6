import { createRequire } from 'node:module';
import type { Bidi } from 'bidi-js';
import * as hb from 'harfbuzzjs';
import { fallbackChain } from './fallback.ts';
import type { FamilyId, Slice } from './families.ts';
import type { FontCache, LoadedSlice, Weight } from './font-cache.ts';
import { type HanFamily, hanFamilyFor } from './han.ts';

/**
 * Text to positioned glyphs: the Unicode bidirectional algorithm (bidi-js) gives each character
 * its direction, each grapheme cluster gets the first font of its fallback chain that has all of
 * it, and HarfBuzz shapes each run (Arabic joining, ligatures, mark placement, mirrored brackets
 * in right-to-left runs). Runs come out in visual order, left to right, each remembering the
 * logical text it draws. Units: 1/1000 em, as PDF text space counts them.
 */

export interface ShapedGlyph {
  gid: number;
  /** Pen advance, and the glyph's offset from the pen (marks sit on their base this way). */
  advance: number;
  dx: number;
  dy: number;
  mark: boolean;
  /** Index in the line's text of the cluster this glyph draws. */
  cluster: number;
}

export interface GlyphRun {
  /** null: no shipped font has these characters (or they are still loading): a blank is left. */
  slice: LoadedSlice | null;
  weight: Weight;
  rtl: boolean;
  /** Where the run's text ends in the line (clusters are indices in the line's text). */
  end: number;
  /** In visual order (HarfBuzz reverses a right-to-left run). */
  glyphs: ShapedGlyph[];
  width: number;
}

export interface ShapedLine {
  /** The logical text drawn (what a reader or text extractor must get back). */
  text: string;
  rtl: boolean;
  runs: GlyphRun[];
  width: number;
}

export interface TextStyle {
  /** Names the style (weight and preferred faces): shaped lines are remembered under it. */
  key: string;
  weight: Weight;
  /** Families tried before the script's own (typed signatures, hashes in monospace). */
  preferred?: (char: string, han: HanFamily) => readonly FamilyId[];
  /** The document's locale, when known: picks the Han face and HarfBuzz's language. */
  locale?: string | null;
}

// A CommonJS package whose types describe an ES default export: required, its factory is the module.
const bidi = (createRequire(import.meta.url)('bidi-js') as () => Bidi)();
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
// Joiners and variation selectors: the shaper handles them; a font need not map them.
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const INHERITS = /^[\p{Script=Common}\p{Script=Inherited}]+$/u;
const CONTEXT = 16;

/**
 * bidi-js classifies UTF-16 code units one by one, so the two halves of an astral character
 * (an emoji, a rare ideograph) would count as left-to-right letters. Each half is replaced by a
 * BMP character of the astral character's own class before the levels are computed.
 */
const STAND_INS: Record<string, string> = {
  L: 'a',
  R: '\u05d0',
  AL: '\u0627',
  EN: '0',
  AN: '\u0660',
  NSM: '\u0300',
  BN: '\u200b',
  ON: '!',
  WS: ' ',
};
function forBidi(text: string): string {
  return text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, (pair) => {
    const c = STAND_INS[bidi.getBidiCharTypeName(pair)] ?? '!';
    return c + c;
  });
}

interface Cluster {
  start: number;
  end: number;
  slice: LoadedSlice | null;
}

export class TextEngine {
  /** Slices a line needed that were not loaded yet: load them and draw again. */
  readonly missing = new Set<Slice>();

  /** Lines and cluster fonts already worked out for this document (the same text recurs a lot). */
  private readonly lines = new Map<string, ShapedLine>();
  private readonly picks = new Map<string, LoadedSlice | null>();
  /** One HarfBuzz buffer, emptied for each run (a new one per run costs an allocation and a finalizer). */
  private readonly buffer = new hb.Buffer();

  constructor(private readonly cache: FontCache) {}

  /** One line, unwrapped. `rtl` forces the paragraph direction (else its first strong letter decides). */
  shapeLine(text: string, style: TextStyle, rtl?: boolean): ShapedLine {
    const key = `${style.key}\u0000${rtl ?? ''}\u0000${style.locale ?? ''}\u0000${text}`;
    let line = this.lines.get(key);
    if (!line) {
      line = this.shapeUncached(text, style, rtl);
      this.lines.set(key, line);
    }
    return line;
  }

  /** Whether a paragraph reads right to left (its first strong letter decides). */
  isRtl(text: string): boolean {
    return (bidi.getEmbeddingLevels(forBidi(text), 'auto').paragraphs[0]?.level ?? 0) % 2 === 1;
  }

  private shapeUncached(text: string, style: TextStyle, rtl?: boolean): ShapedLine {
    const clean = text.replace(/[\t\r\n\u2028\u2029]+/g, ' ');
    const levels = bidi.getEmbeddingLevels(
      forBidi(clean),
      rtl === undefined ? 'auto' : rtl ? 'rtl' : 'ltr',
    );
    const baseRtl = (levels.paragraphs[0]?.level ?? 0) % 2 === 1;
    const han = hanFamilyFor(clean, style.locale);
    const clusters = this.clusters(clean, style, han);

    // Logical runs: same font, same embedding level.
    const runs: Array<{ start: number; end: number; slice: LoadedSlice | null; level: number }> =
      [];
    for (const c of clusters) {
      const level = levels.levels[c.start] ?? 0;
      const last = runs[runs.length - 1];
      if (last && last.slice === c.slice && last.level === level && last.end === c.start)
        last.end = c.end;
      else runs.push({ start: c.start, end: c.end, slice: c.slice, level });
    }
    // Visual order: each run is a contiguous block of the reordered line.
    const order = clean.length ? bidi.getReorderedIndices(clean, levels, 0, clean.length - 1) : [];
    const position = new Map<number, number>();
    for (const [visual, index] of order.entries()) position.set(index, visual);
    runs.sort((a, b) => (position.get(a.start) ?? 0) - (position.get(b.start) ?? 0));

    const shaped: GlyphRun[] = [];
    let width = 0;
    for (const run of runs) {
      const g = this.shapeRun(clean, run.start, run.end, run.slice, run.level % 2 === 1, style);
      width += g.width;
      shaped.push(g);
    }
    return { text, rtl: baseRtl, runs: shaped, width };
  }

  /** Width of the text on one line, in 1/1000 em. */
  measure(text: string, style: TextStyle): number {
    return this.shapeLine(text, style).width;
  }

  private clusters(text: string, style: TextStyle, han: HanFamily): Cluster[] {
    const out: Cluster[] = [];
    const last: { slice: LoadedSlice | null } = { slice: null };
    for (const { segment, index } of graphemes.segment(text)) {
      const points = [...segment].map((ch) => ch.codePointAt(0) ?? 0);
      const needed = points.filter((cp) => !IGNORABLE.test(String.fromCodePoint(cp)));
      const base = String.fromCodePoint(needed[0] ?? points[0]);
      // Spaces, digits and punctuation stay in the font of the text around them when it has them.
      const kept = last.slice;
      const slice =
        kept && INHERITS.test(segment) && needed.every((cp) => kept.glyph(cp))
          ? kept
          : this.pickFor(segment, style, han, () =>
              this.pick(
                needed.length ? needed : points,
                fallbackChain(base, han, style.preferred?.(base, han)),
              ),
            );
      out.push({ start: index, end: index + segment.length, slice });
      if (slice) last.slice = slice;
    }
    return out;
  }

  private pickFor(
    segment: string,
    style: TextStyle,
    han: HanFamily,
    pick: () => LoadedSlice | null,
  ): LoadedSlice | null {
    const key = `${style.key}\u0000${han}\u0000${segment}`;
    let slice = this.picks.get(key);
    if (slice === undefined) {
      slice = pick();
      this.picks.set(key, slice);
    }
    return slice;
  }

  /** The first slice, in chain order, whose font has every code point; a missing one is noted. */
  private pick(points: number[], chain: FamilyId[]): LoadedSlice | null {
    for (const family of chain) {
      for (const slice of this.cache.candidates(family, points[0])) {
        const loaded = this.cache.get(slice);
        if (!loaded) {
          if (points.every((cp) => slice.ranges.some(([a, b]) => cp >= a && cp <= b))) {
            this.missing.add(slice);
            return null;
          }
          continue;
        }
        if (points.every((cp) => loaded.glyph(cp))) return loaded;
      }
    }
    // No one font has the whole cluster: the first code point's font draws it (marks may float).
    return points.length > 1 ? this.pick([points[0]], chain) : null;
  }

  private shapeRun(
    text: string,
    start: number,
    end: number,
    slice: LoadedSlice | null,
    rtl: boolean,
    style: TextStyle,
  ): GlyphRun {
    if (!slice) {
      // Not loaded yet (another pass draws it) or in no shipped font: a blank of half an em per character.
      const glyphs: ShapedGlyph[] = [];
      for (let i = start; i < end; i++)
        glyphs.push({ gid: 0, advance: 500, dx: 0, dy: 0, mark: false, cluster: i });
      return {
        slice: null,
        weight: style.weight,
        rtl,
        end,
        glyphs: rtl ? glyphs.reverse() : glyphs,
        width: 500 * (end - start),
      };
    }
    const from = Math.max(0, start - CONTEXT);
    const to = Math.min(text.length, end + CONTEXT);
    const buffer = this.buffer;
    buffer.reset();
    // Variation selectors and joiners are drawn as nothing (not as a zero-advance space glyph,
    // whose own width would stretch the extracted word over the next glyphs); ligatures and
    // joining they select are formed before they are removed.
    buffer.setFlags(hb.BufferFlag.REMOVE_DEFAULT_IGNORABLES);
    buffer.addText(text.slice(from, to), start - from, end - start);
    buffer.setDirection(rtl ? hb.Direction.RTL : hb.Direction.LTR);
    if (style.locale) buffer.setLanguage(style.locale);
    buffer.guessSegmentProperties();
    hb.shape(slice.font(style.weight), buffer);
    const scale = 1000 / slice.metrics.unitsPerEm;
    const infos = buffer.getGlyphInfos();
    const positions = buffer.getGlyphPositions();
    let width = 0;
    const glyphs = infos.map((info, i) => {
      const p = positions[i];
      width += p.xAdvance * scale;
      return {
        gid: info.codepoint,
        advance: p.xAdvance * scale,
        dx: p.xOffset * scale,
        dy: p.yOffset * scale,
        mark: slice.isMark(info.codepoint),
        cluster: info.cluster + from,
      };
    });
    return { slice, weight: style.weight, rtl, end, glyphs, width };
  }
}
