import type { ShapedLine } from '../fonts/shaper.ts';
import type { Canvas, FontKey, ObjectFactory } from './content.ts';
import type { FinalizeField } from './finalize-input.ts';
import { fitText, LEADING } from './text-layout.ts';

/**
 * Draws field values into a canvas whose coordinates are the displayed page: origin at the
 * bottom-left, `width` × `height` points (the page's form XObject maps them to user space).
 */

const PAD = 2;
/** Smallest size a value shrinks to on one line before it wraps instead. */
const FLOOR = 6;
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
    if (field.draw === 'tick') {
      if (value === 'true') canvas.clipped(box.x, box.y, box.w, box.h, () => drawTick(canvas, box));
    } else if (field.draw === 'mark' && value.startsWith('data:')) {
      const image = await factory.image(value);
      canvas.clipped(box.x, box.y, box.w, box.h, () => {
        const scale = Math.min(box.w / image.width, box.h / image.height);
        const w = image.width * scale;
        const h = image.height * scale;
        canvas.image(image.ref, box.x + (box.w - w) / 2, box.y + (box.h - h) / 2, w, h);
      });
    } else {
      // A typed signature in the face the signing page showed it in; any other value in Noto Sans.
      const typed = field.draw === 'mark';
      const key = typed ? 'signature' : 'sans';
      const text = typed ? value.replace(/\s+/g, ' ').trim() : value;
      const { size, lines } = fitText(factory, key, text, box, {
        maxSize: typed ? MAX_SIGNATURE_SIZE : MAX_TEXT_SIZE,
        floor: FLOOR,
        pad: PAD,
      });
      drawLines(canvas, key, size, lines, box);
    }
  }
}

function drawTick(canvas: Canvas, box: Box): void {
  const unitWidth = canvas.width('sans', TICK, 1);
  const size = Math.min(box.w / unitWidth, box.h / 0.75) * 0.85;
  const w = unitWidth * size;
  canvas.text('sans', size, box.x + (box.w - w) / 2, box.y + (box.h - 0.7 * size) / 2, TICK);
}

/**
 * Lines vertically centred in the box; each starts at the side its paragraph's direction starts
 * from (a right-to-left value is aligned right), after a small padding.
 */
function drawLines(
  canvas: Canvas,
  key: FontKey,
  size: number,
  lines: ShapedLine[],
  box: Box,
): void {
  const block = lines.length * size * LEADING;
  // First baseline: top of the block, less half the leading, less the ascent (about 0.78 em).
  let baseline = box.y + (box.h + block) / 2 - (size * (LEADING - 1)) / 2 - 0.78 * size;
  for (const line of lines) {
    const width = (line.width * size) / 1000;
    const x = line.rtl ? box.x + box.w - PAD - width : box.x + PAD;
    canvas.text(key, size, x, baseline, line);
    baseline -= size * LEADING;
  }
}
