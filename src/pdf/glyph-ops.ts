import type { Weight } from '../fonts/font-cache.ts';
import type { ShapedGlyph, ShapedLine } from '../fonts/shaper.ts';
import type { FontUse, PdfFonts } from './pdf-fonts.ts';
import { formatNumber, pdfText } from './syntax.ts';

// The content-stream operators that draw a shaped line: glyphs of embedded subsets, marked with their text.

const f = formatNumber;

/**
 * The runs of a shaped line, left to right, as `TJ` arrays corrected to HarfBuzz's advances;
 * a glyph offset from its pen position (a mark on its base) gets its own text matrix.
 * Each left-to-right run is a marked-content span whose /ActualText is its logical text, so
 * reordered or merged glyphs (a Devanagari vowel sign drawn before its consonant, ligatures)
 * extract as written. A right-to-left run is marked cluster by cluster instead: extractors
 * (poppler's pdftotext among them) put right-to-left text in reading order themselves, from the
 * glyphs' positions, and would reverse a whole run's /ActualText a second time.
 */
export function lineOps(
  line: ShapedLine,
  fonts: PdfFonts,
  weight: Weight,
  size: number,
  x: number,
  y: number,
  gray: number,
): { content: string; fonts: FontUse[] } {
  const used: FontUse[] = [];
  if (!withoutBidiControls(line.text).trim()) return { content: '', fonts: used };
  const out: string[] = [`BT ${f(gray)} g`];
  let pen = x;
  const k = size / 1000;
  for (const run of line.runs) {
    if (!run.slice) {
      pen += run.width * k;
      continue;
    }
    const font = fonts.use(run.slice, weight);
    used.push(font);
    out.push(`/${font.resource} ${f(size)} Tf`);
    const texts = clusterTexts(line.text, run.glyphs, run.end);
    for (const [i, g] of run.glyphs.entries()) font.record(g.gid, texts[i]);
    for (const glyphs of spans(line.text, run.glyphs, run.rtl)) {
      const start = Math.min(...glyphs.map((g) => g.cluster));
      const end = clusterEnd(run.glyphs, Math.max(...glyphs.map((g) => g.cluster)), run.end);
      // Composed (NFC, the same text): extractors mishandle a combining mark left on its own.
      const actual = withoutBidiControls(line.text.slice(start, end)).normalize('NFC');
      pen = showGlyphs(out, font, glyphs, pen, y, size, actual);
    }
  }
  out.push('ET');
  return { content: out.join('\n'), fonts: used };
}

/**
 * Shows glyphs from `pen` on, marked with their text; returns the pen after them. Marks
 * (accents, vowel signs, the dots Arabic letters are built from) are shown after the span,
 * marked as standing for nothing: extractors measure a span from its first to its last glyph,
 * and a mark there would make the word look shorter and split it.
 */
function showGlyphs(
  out: string[],
  font: { width(gid: number): number },
  glyphs: readonly ShapedGlyph[],
  pen: number,
  y: number,
  size: number,
  actual: string,
): number {
  const k = size / 1000;
  const hex = (gid: number) => `<${gid.toString(16).padStart(4, '0')}>`;
  const carrier = glyphs.find((g) => !g.mark) ?? glyphs[0];
  const shown: string[] = [];
  const marks: string[] = [];
  let tj: string[] = [];
  let expected = pen;
  const flush = () => {
    if (tj.length) shown.push(`[${tj.join(' ')}] TJ`);
    tj = [];
  };
  for (const g of glyphs) {
    const at = `1 0 0 1 ${f(pen + g.dx * k)} ${f(y + g.dy * k)} Tm`;
    if (g.mark && g !== carrier) {
      marks.push(`${at} [${hex(g.gid)}] TJ`);
    } else if (g.dx || g.dy || !tj.length) {
      // Offset (cursive joining moves letters up or down), or the first: placed on its own.
      flush();
      shown.push(at);
      tj.push(hex(g.gid));
      expected = pen + g.dx * k + font.width(g.gid) * k;
      if (g.dx || g.dy) flush();
    } else {
      if (Math.abs(expected - pen) > 1e-6) tj.push(f(((expected - pen) * 1000) / size));
      tj.push(hex(g.gid));
      expected = pen + font.width(g.gid) * k;
    }
    pen += g.advance * k;
  }
  flush();
  out.push(`/Span <</ActualText ${pdfText(actual).text}>> BDC`, ...shown, 'EMC');
  if (marks.length) out.push('/Span <</ActualText ()>> BDC', ...marks, 'EMC');
  return pen;
}

/**
 * The text each glyph stands for, for the ToUnicode map: a cluster's text goes to its first
 * glyph (a ligature's one glyph gets all its letters), the cluster's other glyphs get ''.
 */
function clusterTexts(
  text: string,
  glyphs: ReadonlyArray<{ cluster: number }>,
  runEnd: number,
): string[] {
  const starts = [...new Set(glyphs.map((g) => g.cluster))].sort((a, b) => a - b);
  const end = new Map<number, number>();
  for (const [i, s] of starts.entries()) end.set(s, starts[i + 1] ?? runEnd);
  const seen = new Set<number>();
  return glyphs.map((g) => {
    if (seen.has(g.cluster)) return '';
    seen.add(g.cluster);
    return withoutBidiControls(text.slice(g.cluster, end.get(g.cluster)));
  });
}

/**
 * A run's glyphs in spans, visual order kept: words, with each space on its own; in a
 * right-to-left run, each cluster on its own, as extractors (pdftotext) put right-to-left text in
 * reading order from the glyphs' positions and would reverse a longer span's text again.
 */
function spans(text: string, glyphs: readonly ShapedGlyph[], rtl: boolean): ShapedGlyph[][] {
  const words: ShapedGlyph[][] = [];
  const space = (g: ShapedGlyph) => /^\s$/.test(text[g.cluster] ?? '');
  for (const g of glyphs) {
    const last = words[words.length - 1];
    if (last && !space(g) && !space(last[last.length - 1])) last.push(g);
    else words.push([g]);
  }
  return rtl ? words.flatMap(byCluster) : words;
}

function byCluster(glyphs: readonly ShapedGlyph[]): ShapedGlyph[][] {
  const out: ShapedGlyph[][] = [];
  for (const g of glyphs) {
    const last = out[out.length - 1];
    if (last && last[0].cluster === g.cluster) last.push(g);
    else out.push([g]);
  }
  return out;
}

/** Where the cluster starting at `start` ends: at the next cluster of the run, or the run's end. */
function clusterEnd(glyphs: readonly ShapedGlyph[], start: number, runEnd: number): number {
  let end = runEnd;
  for (const g of glyphs) if (g.cluster > start && g.cluster < end) end = g.cluster;
  return end;
}

/**
 * Text without the embedding, override and isolate controls (LRE…RLO, LRI…PDI) and the marks
 * (LRM, RLM, ALM) that order the drawing: they are not part of the text a reader copies.
 */
export const withoutBidiControls = (text: string) =>
  text.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
