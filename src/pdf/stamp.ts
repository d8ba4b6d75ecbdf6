import type { Canvas, FontKey, ObjectFactory } from './content.ts';
import type { FinalizeField } from './finalize-input.ts';

/**
 * Draws field values into a canvas whose coordinates are the displayed page: origin at the
 * bottom-left, `width` × `height` points (the page's form XObject maps them to user space).
 */

const PAD = 2;
const LEADING = 1.15;
const MIN_SIZE = 4;
const MAX_TEXT_SIZE = 14;
const MAX_SIGNATURE_SIZE = 40;
const TICK = '\u2714';

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export async function stampFields(
  canvas: Canvas,
  factory: ObjectFactory,
  page: { width: number; height: number },
  fields: readonly FinalizeField[],
): Promise<void> {
  for (const field of fields) {
    const value = field.value;
    if (value === null || value === '') continue;
    const box: Box = {
      x: (field.x / 100) * page.width,
      y: page.height - ((field.y + field.height) / 100) * page.height,
      w: (field.width / 100) * page.width,
      h: (field.height / 100) * page.height,
    };
    if (!(box.w > 0 && box.h > 0)) continue;
    if (field.type === 'checkbox') {
      if (value === 'true') canvas.clipped(box.x, box.y, box.w, box.h, () => drawTick(canvas, box));
    } else if (
      (field.type === 'signature' || field.type === 'initials') &&
      value.startsWith('data:')
    ) {
      const image = await factory.image(value);
      canvas.clipped(box.x, box.y, box.w, box.h, () => {
        const scale = Math.min(box.w / image.width, box.h / image.height);
        const w = image.width * scale;
        const h = image.height * scale;
        canvas.image(image.ref, box.x + (box.w - w) / 2, box.y + (box.h - h) / 2, w, h);
      });
    } else if (field.type === 'signature' || field.type === 'initials') {
      // Typed signatures: one line in an italic serif, as large as the box allows.
      const text = value.replace(/\s+/g, ' ').trim();
      const size = Math.max(
        MIN_SIZE,
        Math.min(
          box.h * 0.7,
          MAX_SIGNATURE_SIZE,
          (box.w - 2 * PAD) / Math.max(canvas.width('Times-Italic', text, 1), 0.01),
        ),
      );
      canvas.clipped(box.x, box.y, box.w, box.h, () =>
        drawLines(canvas, 'Times-Italic', size, [text], box),
      );
    } else {
      const { size, lines } = fitText(canvas, 'Helvetica', value, box);
      canvas.clipped(box.x, box.y, box.w, box.h, () =>
        drawLines(canvas, 'Helvetica', size, lines, box),
      );
    }
  }
}

function drawTick(canvas: Canvas, box: Box): void {
  const unitWidth = canvas.width('ZapfDingbats', TICK, 1);
  const size = Math.min(box.w / unitWidth, box.h / 0.75) * 0.85;
  const w = unitWidth * size;
  canvas.text(
    'ZapfDingbats',
    size,
    box.x + (box.w - w) / 2,
    box.y + (box.h - 0.7 * size) / 2,
    TICK,
  );
}

/** Lines vertically centred in the box, left-aligned after a small padding. */
function drawLines(canvas: Canvas, key: FontKey, size: number, lines: string[], box: Box): void {
  const block = lines.length * size * LEADING;
  // First baseline: top of the block, less half the leading, less the ascent (about 0.78 em).
  let baseline = box.y + (box.h + block) / 2 - (size * (LEADING - 1)) / 2 - 0.78 * size;
  for (const line of lines) {
    canvas.text(key, size, box.x + PAD, baseline, line);
    baseline -= size * LEADING;
  }
}

/** The largest size (up to 14 pt) at which the text, wrapped on words, fits the box; 4 pt at least. */
export function fitText(canvas: Canvas, key: FontKey, text: string, box: { w: number; h: number }) {
  const avail = Math.max(box.w - 2 * PAD, 1);
  let size = Math.max(MIN_SIZE, Math.min(MAX_TEXT_SIZE, box.h * 0.7));
  for (;;) {
    const lines = wrapText(canvas, key, text, size, avail);
    if (lines.length * size * LEADING <= box.h + 0.01 || size === MIN_SIZE) return { size, lines };
    size = Math.max(MIN_SIZE, size * 0.9);
  }
}

export function wrapText(
  canvas: Canvas,
  key: FontKey,
  text: string,
  size: number,
  avail: number,
): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (canvas.width(key, candidate, size) <= avail) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      // A word wider than the box is cut wherever it must be.
      while (canvas.width(key, line, size) > avail && line.length > 1) {
        let cut = line.length - 1;
        while (cut > 1 && canvas.width(key, line.slice(0, cut), size) > avail) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    lines.push(line);
  }
  return lines;
}
