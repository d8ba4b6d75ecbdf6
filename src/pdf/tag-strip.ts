import { copyFile, appendFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import type { PdfWorkers } from './pdf-workers.ts';
import { assembleUpdate, type UpdateObject } from './incremental.ts';
import { pageGeometry, readDocumentTree, type PageNode } from './pages.ts';
import { PdfFile } from './reader.ts';
import { PdfRaw, PdfRef, PdfStream, name, serializeIndirect, formatNumber } from './syntax.ts';
import { parseContent } from './content-ops.ts';
import { codesOf } from './tag-fonts.ts';
import { invert } from './matrix.ts';
import { boxOf } from './tag-box.ts';
import { PageScanner, type ContentUnit, type Glyph } from './tag-scan.ts';
import type { PdfValue } from './syntax.ts';

/*
 * Text tags in a PDF (`{{signature:1}}`): found in the text its pages draw and removed from the
 * content streams that draw them, so they are neither shown nor extracted. Removing a glyph keeps
 * its advance (a `TJ` displacement), so the text after it on the line stays where it was. The
 * changed streams and pages are written as an incremental update appended to the upload: the
 * file signers see starts with the exact bytes uploaded.
 */

/** A tag as found: its text, where its glyphs were drawn, and whether they could be removed. */
export interface FoundTag {
  text: string;
  /** 1-based. */
  page: number;
  /** The tag's box on the displayed page, in points from its top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
  pageWidth: number;
  pageHeight: number;
  removed: boolean;
}

/** A tag's text: `{{`, at most 500 characters without braces, `}}`. */
const TAG = /\{\{[^{}]{0,500}\}\}/g;

/** Tags read from one file; past it a file's tags are still removed but not reported one by one. */
const MAX_REPORTED_TAGS = 1001;

interface Removal {
  unit: ContentUnit;
  op: number;
  index: number;
}

/** Finds the tags of one page's glyphs; marks the removable ones' glyphs in `removals`. */
function tagsOfPage(
  glyphs: Glyph[],
  removals: Removal[][],
): Array<Omit<FoundTag, 'page' | 'pageWidth' | 'pageHeight'>> {
  let text = '';
  const owner: number[] = [];
  const startOf: number[] = [];
  glyphs.forEach((g, i) => {
    startOf.push(text.length);
    text += g.text;
    for (let k = 0; k < g.text.length; k++) owner.push(i);
  });
  const found: Array<Omit<FoundTag, 'page' | 'pageWidth' | 'pageHeight'>> = [];
  for (const m of text.matchAll(TAG)) {
    const first = owner[m.index];
    const last = owner[m.index + m[0].length - 1];
    const span = glyphs.slice(first, last + 1);
    const box = span
      .map(boxOf)
      .reduce(
        (b, g) => [
          Math.min(b[0], g[0]),
          Math.min(b[1], g[1]),
          Math.max(b[2], g[2]),
          Math.max(b[3], g[3]),
        ],
        [Infinity, Infinity, -Infinity, -Infinity],
      );
    // A glyph that also stands for text outside the tag (a ligature) cannot go alone, and glyphs
    // under an /ActualText would leave the tag in the extracted text: such a tag stays.
    const exact =
      span.every((g) => !g.replaced) &&
      startOf[first] === m.index &&
      startOf[last] + glyphs[last].text.length === m.index + m[0].length &&
      span.every((g) => (g.unit.shows.get(g.op)?.size ?? 0) !== 0);
    if (exact) removals.push(span.map((g) => ({ unit: g.unit, op: g.op, index: g.index })));
    found.push({
      text: m[0],
      x: Math.max(0, box[0]),
      y: Math.max(0, box[1]),
      width: Math.max(0, box[2] - box[0]),
      height: Math.max(0, box[3] - box[1]),
      removed: exact,
    });
  }
  return found;
}

const hex = (codes: number[], bytes: 1 | 2) =>
  `<${codes.map((c) => c.toString(16).padStart(bytes * 2, '0')).join('')}>`;

/** The operation showing the same glyphs except `gone`, each replaced by its advance. */
function rewriteShow(unit: ContentUnit, opIndex: number, gone: Set<number>): string {
  const op = unit.ops[opIndex];
  const state = unit.shows.get(opIndex)!;
  const { font, size, tc } = state;
  const a = op.operands;
  const shown: PdfValue[] =
    op.operator === 'TJ' ? (a[0] as PdfValue[]) : op.operator === '"' ? [a[2]] : [a[0]];
  const tw = op.operator === '"' ? (a[0] as number) : state.tw;
  const out: string[] = [];
  let run: number[] = [];
  let shift = 0;
  let index = 0;
  const flushShift = () => {
    if (shift !== 0) out.push(formatNumber(shift));
    shift = 0;
  };
  const flushRun = () => {
    if (run.length > 0) {
      flushShift();
      out.push(hex(run, font.bytesPerCode));
    }
    run = [];
  };
  for (const item of shown) {
    if (typeof item === 'number') {
      flushRun();
      shift += item;
      continue;
    }
    if (!(item instanceof PdfRaw)) continue;
    for (const code of codesOf(item.text, font)) {
      if (!gone.has(index++)) {
        run.push(code);
        continue;
      }
      flushRun();
      const space = font.bytesPerCode === 1 && code === 32 ? tw : 0;
      shift -= font.width(code) + ((tc + space) * 1000) / size;
    }
  }
  flushRun();
  flushShift();
  const tj = `[${out.join(' ')}] TJ`;
  if (op.operator === "'") return `T* ${tj}`;
  if (op.operator === '"')
    return `${formatNumber(a[0] as number)} Tw ${formatNumber(a[1] as number)} Tc T* ${tj}`;
  return tj;
}

/** The unit's bytes with its marked operations rewritten. */
function rewriteUnit(unit: ContentUnit, marks: Map<number, Set<number>>): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const [opIndex, gone] of [...marks].sort((x, y) => x[0] - y[0])) {
    const op = unit.ops[opIndex];
    parts.push(
      unit.data.subarray(at, op.start),
      Buffer.from(rewriteShow(unit, opIndex, gone), 'latin1'),
    );
    at = op.end;
  }
  parts.push(unit.data.subarray(at));
  return Buffer.concat(parts);
}

function pageContent(file: PdfFile, page: PageNode): ContentUnit {
  const contents = file.resolve(page.dict.get('Contents'));
  const streams = (Array.isArray(contents) ? contents : [contents])
    .map((c) => file.resolve(c))
    .filter((s): s is PdfStream => s instanceof PdfStream);
  const data = Buffer.concat(streams.flatMap((s) => [file.streamData(s), Buffer.from('\n')]));
  return { data, ops: parseContent(data), shows: new Map() };
}

const flate = (data: Buffer) =>
  new PdfStream(new Map([['Filter', name('FlateDecode')]]), deflateSync(data));

/**
 * The tags of the PDF at `path`. When any was removed, writes the file without them to `out`
 * (the upload plus an incremental update) and says so.
 */
async function stripTags(
  path: string,
  out: string,
): Promise<{ tags: FoundTag[]; count: number; written: boolean }> {
  const { tags, count, update } = readAndRewrite(path);
  if (update) {
    await copyFile(path, out);
    await appendFile(out, update);
  }
  return { tags, count, written: update !== null };
}

function readAndRewrite(path: string) {
  const file = PdfFile.open(path);
  try {
    const tree = readDocumentTree(file);
    const scanner = new PageScanner(file);
    const tags: FoundTag[] = [];
    let count = 0;
    const marks = new Map<ContentUnit, Map<number, Set<number>>>();
    const pageUnits = new Map<ContentUnit, PageNode>();
    tree.pages.forEach((page, i) => {
      const geometry = pageGeometry(file, page);
      const unit = pageContent(file, page);
      const glyphs = scanner.scan(
        unit,
        page.inherited.Resources,
        invert(geometry.matrix),
        geometry.height,
      );
      const removals: Removal[][] = [];
      for (const tag of tagsOfPage(glyphs, removals))
        if (++count <= MAX_REPORTED_TAGS)
          tags.push({
            ...tag,
            page: i + 1,
            pageWidth: geometry.width,
            pageHeight: geometry.height,
          });
      for (const r of removals.flat()) {
        const byOp = marks.get(r.unit) ?? new Map<number, Set<number>>();
        marks.set(r.unit, byOp);
        const gone = byOp.get(r.op) ?? new Set<number>();
        byOp.set(r.op, gone);
        gone.add(r.index);
        if (!r.unit.formRef) pageUnits.set(r.unit, page);
      }
    });
    if (marks.size === 0) return { tags, count, update: null };
    const objects: UpdateObject[] = [];
    let next = file.nextObjectNumber;
    for (const [unit, byOp] of marks) {
      const data = rewriteUnit(unit, byOp);
      if (unit.formRef) {
        const form = file.get(unit.formRef.num) as PdfStream;
        const d = new Map(form.dict);
        d.delete('DecodeParms');
        d.set('Filter', name('FlateDecode'));
        objects.push({
          ref: unit.formRef,
          bytes: serializeIndirect(unit.formRef, new PdfStream(d, deflateSync(data))),
        });
        continue;
      }
      const page = pageUnits.get(unit)!;
      const ref = new PdfRef(next++, 0);
      objects.push({ ref, bytes: serializeIndirect(ref, flate(data)) });
      const d = new Map(page.dict);
      d.set('Contents', ref);
      objects.push({ ref: page.ref, bytes: serializeIndirect(page.ref, d) });
    }
    const update = assembleUpdate(file, objects, {
      id: file.trailer.get('ID') ?? [],
      allocXrefStream: () => new PdfRef(next++, 0),
    }).bytes;
    return { tags, count, update };
  } finally {
    file.close();
  }
}

/** The bounds of reading one file's tags (docs/limits.md). */
const TAG_LIMITS = { heapMb: 512, deadlineMs: 60_000, maxWaiting: 32 };

type TagsRead = Awaited<ReturnType<typeof stripTags>>;

/**
 * The worker's task.
 * @public (called by name, so the dead-export check keeps it)
 */
export const stripTagsTask = (task: { path: string; out: string }) =>
  stripTags(task.path, task.out);

/**
 * stripTags on a bounded worker thread: an untrusted file is never interpreted on the API's
 * event loop, and one that asks for too much time or memory fails alone (`WorkerLimitError`).
 */
export function stripTagsInWorker(
  workers: PdfWorkers,
  path: string,
  out: string,
): Promise<TagsRead> {
  const worker = workers.pool<{ path: string; out: string }, TagsRead>('tags', {
    moduleUrl: import.meta.url,
    exportName: 'stripTagsTask',
    deadlineMs: TAG_LIMITS.deadlineMs,
    resourceLimits: { maxOldGenerationSizeMb: TAG_LIMITS.heapMb },
    maxWaiting: TAG_LIMITS.maxWaiting,
  });
  return worker.run({ path, out });
}
