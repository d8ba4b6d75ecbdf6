import type { PdfFile } from './reader.ts';
import {
  PDF_LIMITS,
  PdfLimitError,
  PdfRef,
  PdfSyntaxError,
  isDict,
  isName,
  type PdfDict,
  type PdfValue,
} from './syntax.ts';

/** Attributes a page may inherit from its ancestors in the page tree. */
const INHERITABLE = ['Resources', 'MediaBox', 'CropBox', 'Rotate'] as const;
type Inherited = Partial<Record<(typeof INHERITABLE)[number], PdfValue>>;

export interface PageNode {
  ref: PdfRef;
  dict: PdfDict;
  inherited: Inherited;
}

export interface DocumentTree {
  catalogRef: PdfRef;
  catalog: PdfDict;
  pagesRef: PdfRef;
  pagesRoot: PdfDict;
  pages: PageNode[];
}

/**
 * Walks the page tree in order. Every page node must be an indirect object (the spec requires it).
 * Bounded: at most `PDF_LIMITS.pageTreeDepth` levels and `PDF_LIMITS.pages` pages (`PdfLimitError`).
 */
export function readDocumentTree(file: PdfFile): DocumentTree {
  const catalogRef = file.trailer.get('Root') as PdfRef;
  const catalog = file.get(catalogRef.num);
  if (!isDict(catalog)) throw new PdfSyntaxError('the catalog is not a dictionary');
  const pagesRef = catalog.get('Pages');
  if (!(pagesRef instanceof PdfRef))
    throw new PdfSyntaxError('the catalog has no /Pages reference');
  const pagesRoot = file.get(pagesRef.num);
  if (!isDict(pagesRoot)) throw new PdfSyntaxError('the page tree root is not a dictionary');

  const pages: PageNode[] = [];
  const visited = new Set<number>();
  const walk = (ref: PdfRef, node: PdfDict, inherited: Inherited, depth: number) => {
    if (visited.has(ref.num)) throw new PdfSyntaxError('the page tree has a cycle');
    if (depth > PDF_LIMITS.pageTreeDepth)
      throw new PdfLimitError(`the page tree is deeper than ${PDF_LIMITS.pageTreeDepth} levels`);
    visited.add(ref.num);
    const own: Inherited = { ...inherited };
    for (const key of INHERITABLE) if (node.has(key)) own[key] = node.get(key);
    const kids = file.resolve(node.get('Kids'));
    if (isName(node.get('Type'), 'Pages') || Array.isArray(kids)) {
      if (!Array.isArray(kids)) throw new PdfSyntaxError('a /Pages node without /Kids');
      for (const kid of kids) {
        if (!(kid instanceof PdfRef))
          throw new PdfSyntaxError('a page tree kid is not a reference');
        const kidDict = file.get(kid.num);
        if (!isDict(kidDict))
          throw new PdfSyntaxError(`page tree node ${kid.num} is not a dictionary`);
        walk(kid, kidDict, own, depth + 1);
      }
    } else {
      if (pages.length >= PDF_LIMITS.pages)
        throw new PdfLimitError(`the document has more than ${PDF_LIMITS.pages} pages`);
      pages.push({ ref, dict: node, inherited: own });
    }
  };
  walk(pagesRef, pagesRoot, {}, 0);
  return { catalogRef, catalog, pagesRef, pagesRoot, pages };
}

type Matrix = [number, number, number, number, number, number];

interface PageGeometry {
  /** Width and height of the page as a reader displays it (after /Rotate). */
  width: number;
  height: number;
  /** Maps display space (origin bottom-left of the displayed page, y up) to user space. */
  matrix: Matrix;
}

function numbers(file: PdfFile, v: PdfValue | undefined): number[] | undefined {
  const arr = file.resolve(v);
  if (!Array.isArray(arr) || arr.length !== 4) return undefined;
  const out = arr.map((x) => file.resolve(x));
  return out.every((x) => typeof x === 'number') ? (out as number[]) : undefined;
}

function normalizeBox(b: number[]): [number, number, number, number] {
  return [Math.min(b[0], b[2]), Math.min(b[1], b[3]), Math.max(b[0], b[2]), Math.max(b[1], b[3])];
}

/**
 * The visible area (CropBox clipped to MediaBox) and the rotation a reader applies, as one
 * matrix: content drawn in display space then appears upright wherever /Rotate turns the page.
 */
export function pageGeometry(file: PdfFile, page: PageNode): PageGeometry {
  const media = normalizeBox(numbers(file, page.inherited.MediaBox) ?? [0, 0, 612, 792]);
  const crop = normalizeBox(numbers(file, page.inherited.CropBox) ?? media);
  const llx = Math.max(media[0], crop[0]);
  const lly = Math.max(media[1], crop[1]);
  const urx = Math.min(media[2], crop[2]);
  const ury = Math.min(media[3], crop[3]);
  const w = urx - llx;
  const h = ury - lly;
  const rotateValue = file.resolve(page.inherited.Rotate);
  const rotate = ((((typeof rotateValue === 'number' ? Math.round(rotateValue / 90) * 90 : 0) %
    360) +
    360) %
    360) as 0 | 90 | 180 | 270;
  // A reader turns the page clockwise by /Rotate; these invert that turn.
  switch (rotate) {
    case 90:
      return { width: h, height: w, matrix: [0, 1, -1, 0, llx + w, lly] };
    case 180:
      return { width: w, height: h, matrix: [-1, 0, 0, -1, urx, ury] };
    case 270:
      return { width: h, height: w, matrix: [0, -1, 1, 0, llx, ury] };
    default:
      return { width: w, height: h, matrix: [1, 0, 0, 1, llx, lly] };
  }
}
