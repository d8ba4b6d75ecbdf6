import fsp from 'node:fs/promises';
import { WorkerLimitError } from './bounded-worker.ts';
import type { PdfWorkers } from './pdf-workers.ts';

/**
 * Finding text in a PDF: where each occurrence of a string sits on the displayed page. Text comes
 * from pdf.js (`getTextContent`), which gives each run in logical order (right-to-left runs are
 * reordered from the file's visual order) with its position; both the page text and the string
 * searched for are compared after NFKC normalization, with every run of white space equal to one
 * space, case-sensitively. Runs on a bounded worker thread: an untrusted file of up to 50 MB is
 * never parsed on the API's event loop, and one that asks for too much time or memory fails alone.
 */

const TEXT_SEARCH_LIMITS = {
  heapMb: 512,
  deadlineMs: 60_000,
  maxWaiting: 32,
  /** Occurrences reported per string: more than a document may have fields. */
  maxOccurrences: 501,
};

/** One occurrence: the top-left corner of the text's box, in points from the page's top-left. */
interface TextOccurrence {
  /** 1-based. */
  page: number;
  x: number;
  y: number;
  /** Size of the displayed page (rotation and crop box applied), in points. */
  pageWidth: number;
  pageHeight: number;
}

/** The file could not be read as a PDF. */
export class UnreadableTextError extends Error {
  override name = 'UnreadableTextError';
}

/** How strings are compared: NFKC, runs of white space as one space, trimmed. */
const normalizeForSearch = (text: string) => text.normalize('NFKC').replace(/\s+/gu, ' ').trim();

/** Every occurrence of each of `needles` (at most `maxOccurrences` each) in the PDF at `path`. */
export function findTextInWorker(
  workers: PdfWorkers,
  path: string,
  needles: string[],
): Promise<TextOccurrence[][]> {
  const worker = workers.pool<{ path: string; needles: string[] }, TextOccurrence[][]>('text', {
    moduleUrl: import.meta.url,
    exportName: 'findTextTask',
    deadlineMs: TEXT_SEARCH_LIMITS.deadlineMs,
    resourceLimits: { maxOldGenerationSizeMb: TEXT_SEARCH_LIMITS.heapMb },
    rebuild: (name, message) =>
      name === 'UnreadableTextError'
        ? new UnreadableTextError(message)
        : name === 'WorkerLimitError'
          ? new WorkerLimitError(message)
          : undefined,
    maxWaiting: TEXT_SEARCH_LIMITS.maxWaiting,
  });
  return worker.run({ path, needles });
}

interface Item {
  str: string;
  height: number;
  dir: string;
  width: number;
  transform: number[];
  fontName: string;
  hasEOL: boolean;
}

/** Where a UTF-16 unit of the page text came from: its run and its position along it (0-1). */
interface Origin {
  item: number;
  from: number;
  to: number;
}

/**
 * The worker's task: reads the file, searches every page.
 * @public (called by name, so the dead-export check keeps it)
 */
export async function findTextTask(task: {
  path: string;
  needles: string[];
}): Promise<TextOccurrence[][]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const needles = task.needles.map(normalizeForSearch);
  const found: TextOccurrence[][] = needles.map(() => []);
  const data = new Uint8Array(await fsp.readFile(task.path));
  let doc: Awaited<ReturnType<typeof getDocument>['promise']>;
  try {
    doc = await getDocument({
      data,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
    }).promise;
  } catch (err) {
    throw new UnreadableTextError(`the file cannot be read as a PDF: ${(err as Error).message}`);
  }
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const items = content.items.filter((i) => 'str' in i) as Item[];
      const { text, origins } = pageText(items);
      needles.forEach((needle, k) => {
        if (!needle) return;
        for (
          let at = text.indexOf(needle);
          at !== -1 && found[k].length < TEXT_SEARCH_LIMITS.maxOccurrences;
          at = text.indexOf(needle, at + 1)
        ) {
          const corner = topLeft(
            items,
            origins.slice(at, at + needle.length),
            viewport.transform,
            content.styles,
          );
          found[k].push({
            page: n,
            ...corner,
            pageWidth: viewport.width,
            pageHeight: viewport.height,
          });
        }
      });
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
  return found;
}

const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const LETTER = /\p{L}/u;
type Direction = 'rtl' | 'ltr' | null;
/** An item's strong direction: right-to-left letters, other letters, or none (spaces, punctuation). */
const directionOf = (item: Item): Direction =>
  RTL.test(item.str) ? 'rtl' : LETTER.test(item.str) ? 'ltr' : null;

/**
 * The items of one line in logical order. pdf.js gives a line's runs left to right, each run in
 * logical order; a right-to-left line (more right-to-left runs than left-to-right ones) is read
 * from its right end, and inside either kind of line a sequence of runs of the other direction
 * (with the spaces between them) is read from its own start.
 */
function logicalOrder(line: number[], items: Item[]): number[] {
  const dirs = line.map((i) => directionOf(items[i]));
  const rtl = dirs.filter((d) => d === 'rtl').length > dirs.filter((d) => d === 'ltr').length;
  const base: Direction = rtl ? 'rtl' : 'ltr';
  const other: Direction = rtl ? 'ltr' : 'rtl';
  const order = rtl ? [...line].reverse() : [...line];
  const dirOf = new Map(line.map((i, k) => [i, dirs[k]]));
  const out: number[] = [];
  for (let k = 0; k < order.length; ) {
    if (dirOf.get(order[k]) !== other) {
      out.push(order[k++]);
      continue;
    }
    // A run of the other direction: up to its last strong item, neutrals inside it included.
    let end = k;
    for (let j = k; j < order.length && dirOf.get(order[j]) !== base; j++)
      if (dirOf.get(order[j]) === other) end = j;
    out.push(...order.slice(k, end + 1).reverse());
    k = end + 1;
  }
  return out;
}

/** The page's items grouped into lines (a line ends at an end-of-line mark or a new baseline). */
function linesOf(items: Item[]): number[][] {
  const lines: number[][] = [];
  let line: number[] = [];
  let baseline: number | null = null;
  items.forEach((item, i) => {
    const y = item.transform[5];
    const size = Math.abs(item.transform[3]) || 1;
    if (line.length > 0 && baseline !== null && Math.abs(y - baseline) > size / 2) {
      lines.push(line);
      line = [];
    }
    line.push(i);
    baseline = y;
    if (item.hasEOL) {
      lines.push(line);
      line = [];
      baseline = null;
    }
  });
  if (line.length > 0) lines.push(line);
  return lines;
}

/** The page's text in logical order, normalized like the needles, and where each unit came from. */
function pageText(items: Item[]): { text: string; origins: Origin[] } {
  let text = '';
  const origins: Origin[] = [];
  const push = (unit: string, origin: Origin) => {
    if (unit === ' ' && (text === '' || text.endsWith(' '))) return;
    text += unit;
    origins.push(origin);
  };
  for (const line of linesOf(items)) {
    const ordered = logicalOrder(line, items);
    for (const i of ordered) {
      const points = Array.from(items[i].str.normalize('NFKC'));
      points.forEach((point, k) => {
        const origin = { item: i, from: k / points.length, to: (k + 1) / points.length };
        if (/\s/u.test(point)) push(' ', origin);
        else for (const unit of point.split('')) push(unit, origin);
      });
    }
    const last = ordered.at(-1);
    if (last !== undefined) push(' ', { item: last, from: 1, to: 1 });
  }
  return { text, origins };
}

/**
 * The top-left corner of the box covering `span` on the displayed page. A run's position along
 * its baseline is proportional to the characters before it; a right-to-left run starts on its
 * right. The box reaches from the baseline up to the font's ascent.
 */
function topLeft(
  items: Item[],
  span: Origin[],
  view: number[],
  styles: Record<string, { ascent?: number }>,
): { x: number; y: number } {
  let x = Number.POSITIVE_INFINITY;
  let y = Number.POSITIVE_INFINITY;
  for (const o of span) {
    const item = items[o.item];
    const t = item.transform;
    // The run's matrix on the displayed page (the viewport's matrix times the run's).
    const m = [
      view[0] * t[0] + view[2] * t[1],
      view[1] * t[0] + view[3] * t[1],
      view[0] * t[2] + view[2] * t[3],
      view[1] * t[2] + view[3] * t[3],
      view[0] * t[4] + view[2] * t[5] + view[4],
      view[1] * t[4] + view[3] * t[5] + view[5],
    ];
    const along = Math.hypot(m[0], m[1]) || 1;
    const size = Math.hypot(m[2], m[3]) || 1;
    const ascent = styles[item.fontName]?.ascent;
    const rise = ascent && ascent > 0.3 && ascent < 1.2 ? ascent : 0.8;
    const rtl = item.dir === 'rtl';
    for (const f of [o.from, o.to]) {
      const d = (rtl ? 1 - f : f) * item.width;
      const bx = m[4] + (m[0] / along) * d;
      const by = m[5] + (m[1] / along) * d;
      // The glyphs' up direction on the displayed page, scaled to the ascent.
      for (const [px, py] of [
        [bx, by],
        [bx + (m[2] / size) * size * rise, by + (m[3] / size) * size * rise],
      ]) {
        x = Math.min(x, px);
        y = Math.min(y, py);
      }
    }
  }
  return { x: Math.max(0, x), y: Math.max(0, y) };
}
