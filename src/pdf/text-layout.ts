import type { ShapedLine } from '../fonts/shaper.ts';
import type { FontKey, ObjectFactory } from './content.ts';

/**
 * Breaking text into lines that fit a width. Break opportunities are the word boundaries of
 * Intl.Segmenter (ICU: spaces in most scripts, dictionary words in Thai, each ideograph in CJK);
 * a word wider than the line is broken between grapheme clusters, never inside one. Widths are
 * measured once per word in em units, so trying several sizes costs no further shaping.
 */

const LEADING = 1.15;
const MIN_DRAWN_SIZE = 0.5;

const words = new Intl.Segmenter('und', { granularity: 'word' });
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

interface LaidText {
  size: number;
  lines: ShapedLine[];
}

/** Measures pieces of text in one style, remembering each width (1/1000 em). */
class Measure {
  private readonly widths = new Map<string, number>();
  constructor(
    private readonly factory: ObjectFactory,
    private readonly key: FontKey,
  ) {}
  em(text: string): number {
    let w = this.widths.get(text);
    if (w === undefined) {
      w = this.factory.shape(this.key, text).width;
      this.widths.set(text, w);
    }
    return w;
  }
}

interface Paragraph {
  text: string;
  rtl: boolean;
  pieces: string[];
}

/** A paragraph's direction: given (the document's locale), or from its first strong letter. */
type Direction = 'ltr' | 'rtl';

function paragraphs(factory: ObjectFactory, text: string, direction?: Direction): Paragraph[] {
  return text.split(/\r\n|[\n\r\u2028\u2029]/).map((p) => {
    const clean = p.replace(/\t/g, ' ');
    return {
      text: clean,
      rtl: direction ? direction === 'rtl' : factory.engine.isRtl(clean),
      pieces: joinPunctuation([...words.segment(clean)].map((s) => s.segment)),
    };
  });
}

/** Punctuation stays with the word before it ("Montgomery-" breaks after its hyphen, "end." keeps its stop). */
function joinPunctuation(pieces: string[]): string[] {
  const out: string[] = [];
  for (const piece of pieces) {
    const last = out[out.length - 1];
    if (last?.trim() && /^[\p{Pd}\p{Pe}\p{Pf}\p{Po}]+$/u.test(piece))
      out[out.length - 1] = last + piece;
    else out.push(piece);
  }
  return out;
}

/** Lines (logical text) of one paragraph at `size` within `avail` points. */
function breakParagraph(p: Paragraph, measure: Measure, size: number, avail: number): string[] {
  const limit = (avail * 1000) / size;
  const lines: string[] = [];
  let line = '';
  let width = 0;
  const push = () => {
    lines.push(line.trimEnd());
    line = '';
    width = 0;
  };
  for (const piece of p.pieces) {
    const w = measure.em(piece);
    if (width + w <= limit || (!line.trim() && !piece.trim())) {
      line += piece;
      width += w;
      continue;
    }
    if (!piece.trim()) {
      push();
      continue;
    }
    if (line.trim()) push();
    if (w <= limit) {
      line = piece;
      width = w;
      continue;
    }
    // A word wider than the line: as many grapheme clusters per line as fit.
    for (const { segment } of graphemes.segment(piece)) {
      const gw = measure.em(segment);
      if (line && width + gw > limit) push();
      line += segment;
      width += gw;
    }
  }
  if (line.trim() || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}

/**
 * The text in lines no wider than `avail` points at `size`, shaped for drawing. Each paragraph
 * reads in `direction` when given, else in the direction of its first strong letter.
 */
export function wrapText(
  factory: ObjectFactory,
  key: FontKey,
  text: string,
  size: number,
  avail: number,
  direction?: Direction,
): ShapedLine[] {
  const measure = new Measure(factory, key);
  return paragraphs(factory, text, direction).flatMap((p) =>
    breakParagraph(p, measure, size, avail).map((line) => factory.shape(key, line, p.rtl)),
  );
}

/**
 * The largest size, up to `maxSize`, at which the text fits the box. A box one line high keeps
 * the text on one line, shrunk no further than `floor`; past that (or in a box with room for
 * more lines) the text wraps and shrinks until every line fits the box. Nothing is ever cut: in
 * the end the text is as small as it must be.
 */
export function fitText(
  factory: ObjectFactory,
  key: FontKey,
  text: string,
  box: { w: number; h: number },
  options: { maxSize: number; floor: number; pad: number },
): LaidText {
  const avail = Math.max(box.w - 2 * options.pad, 1);
  const start = Math.max(MIN_DRAWN_SIZE, Math.min(options.maxSize, box.h * 0.7));
  const measure = new Measure(factory, key);
  const paras = paragraphs(factory, text);
  let single = 0;
  if (paras.length === 1) {
    const width = paras[0].pieces.reduce((sum, piece) => sum + measure.em(piece), 0);
    single = Math.min(start, (avail * 1000) / Math.max(width, 1), box.h / LEADING);
  }
  const singleLine = (): LaidText => ({
    size: single,
    lines: [factory.shape(key, paras[0].text, paras[0].rtl)],
  });
  if (single >= start - 1e-6) return singleLine();
  const oneLineBox = box.h < 2 * start * LEADING;
  if (oneLineBox && single >= options.floor) return singleLine();
  let size = start;
  for (;;) {
    const lines = paras.flatMap((p) =>
      breakParagraph(p, measure, size, avail).map((line) => ({ line, rtl: p.rtl })),
    );
    if (lines.length * size * LEADING <= box.h + 0.01 || size <= MIN_DRAWN_SIZE) {
      if (single >= size) return singleLine();
      return { size, lines: lines.map((l) => factory.shape(key, l.line, l.rtl)) };
    }
    size = Math.max(MIN_DRAWN_SIZE, size * 0.92);
  }
}

export { LEADING };
