import { apply, mul } from './matrix.ts';
import type { Glyph } from './tag-scan.ts';

/** A glyph's box on the displayed page, points from its top-left: left, top, right, bottom. */
export function boxOf(g: Glyph): [number, number, number, number] {
  const { line, e, f, width } = g.at;
  const { rise, top, height } = line;
  const tm = line.tm;
  const m = mul([tm[0], tm[1], tm[2], tm[3], e, f], line.ctm);
  let [l, t, r, b] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of [
    [0, rise],
    [width, rise],
    [0, top],
    [width, top],
  ]) {
    const [dx, dy] = apply(m, x, y);
    l = Math.min(l, dx);
    r = Math.max(r, dx);
    t = Math.min(t, height - dy);
    b = Math.max(b, height - dy);
  }
  return [l, t, r, b];
}
