import { parseContent, type ContentOp } from './content-ops.ts';
import type { PdfFile } from './reader.ts';
import {
  isDict,
  isName,
  PdfRaw,
  PdfRef,
  PdfStream,
  type PdfDict,
  type PdfValue,
} from './syntax.ts';
import { IDENTITY, mul, type Matrix } from './matrix.ts';
import { codesOf, readTextFont, type TextFont } from './tag-fonts.ts';

/*
 * Reads a page's text glyph by glyph as its content streams draw it (ISO 32000-1 §9.4): each
 * glyph with the text it stands for, its box on the displayed page and the operation that shows
 * it, following the graphics state (q/Q, cm), the text state and matrices, and form XObjects.
 */

/** One content stream being read: a page's (its /Contents joined) or a form XObject's. */
export interface ContentUnit {
  /** The form's object number; undefined for a page's own content. */
  formRef?: PdfRef;
  data: Buffer;
  ops: ContentOp[];
  /** What each text-showing operation was drawn with (first time it ran), by operation index. */
  shows: Map<number, ShowState>;
}

export interface ShowState {
  font: TextFont;
  size: number;
  tc: number;
  tw: number;
}

export interface Glyph {
  text: string;
  unit: ContentUnit;
  op: number;
  /** Index of the glyph among those its operation shows. */
  index: number;
  /** Where it was drawn (see boxOf in tag-box.ts). */
  at: Placement;
  /** Inside a marked-content span whose /ActualText stands for its glyphs in extracted text. */
  replaced: boolean;
}

/** A glyph's text matrix (`line`'s with the glyph's own translation `e`, `f`) and advance. */
interface Placement {
  line: {
    tm: Matrix;
    /** User space to the displayed page (origin bottom-left). */
    ctm: Matrix;
    /** Rise and ascent in text space; the displayed page's height. */
    rise: number;
    top: number;
    height: number;
  };
  e: number;
  f: number;
  width: number;
}

interface GState {
  ctm: Matrix;
  tc: number;
  tw: number;
  th: number;
  tl: number;
  ts: number;
  font: TextFont | null;
  size: number;
}

/** Nesting of form XObjects followed. */
const MAX_FORM_DEPTH = 12;

const n = (v: PdfValue | undefined) => (typeof v === 'number' ? v : 0);

export class PageScanner {
  private readonly fonts = new Map<PdfValue, TextFont>();
  /** Form XObjects read so far, by object number: each is parsed once per file. */
  readonly forms = new Map<number, ContentUnit>();

  constructor(private readonly file: PdfFile) {}

  /**
   * The glyphs of one page in drawing order. `toDisplay` maps user space to the displayed page
   * (origin bottom-left); `height` is the displayed page's height.
   */
  scan(unit: ContentUnit, resources: PdfValue | undefined, toDisplay: Matrix, height: number) {
    const glyphs: Glyph[] = [];
    this.run(unit, this.file.resolve(resources), toDisplay, height, glyphs, new Set(), 0, false);
    return glyphs;
  }

  private font(resources: PdfDict | undefined, key: string): TextFont | null {
    const fonts = resources ? this.file.resolve(resources.get('Font')) : undefined;
    const ref = isDict(fonts) ? fonts.get(key) : undefined;
    const dict = this.file.resolve(ref);
    if (!isDict(dict)) return null;
    const id = ref instanceof PdfRef ? ref.num : dict;
    const font = this.fonts.get(id) ?? readTextFont(this.file, dict);
    this.fonts.set(id, font);
    return font;
  }

  /** Whether a BDC's properties (inline, or named in the resources' /Properties) carry /ActualText. */
  private hasActualText(props: PdfValue | undefined, resources: PdfDict | undefined): boolean {
    let dict = this.file.resolve(props);
    if (isName(dict) && resources) {
      const named = this.file.resolve(resources.get('Properties'));
      dict = isDict(named) ? this.file.resolve(named.get(dict.raw)) : undefined;
    }
    return isDict(dict) && dict.get('ActualText') !== undefined;
  }

  private formUnit(ref: PdfRef, stream: PdfStream): ContentUnit {
    let unit = this.forms.get(ref.num);
    if (!unit) {
      const data = this.file.streamData(stream);
      unit = { formRef: ref, data, ops: parseContent(data), shows: new Map() };
      this.forms.set(ref.num, unit);
    }
    return unit;
  }

  private run(
    unit: ContentUnit,
    resourcesValue: PdfValue | undefined,
    ctm: Matrix,
    height: number,
    glyphs: Glyph[],
    active: Set<number>,
    depth: number,
    replacedAround: boolean,
  ): void {
    const resources = isDict(resourcesValue) ? resourcesValue : undefined;
    // Marked-content spans open here (BMC/BDC … EMC): whether each replaces its text.
    const marked: boolean[] = [];
    const replaced = () => marked.at(-1) ?? replacedAround;
    let gs: GState = { ctm, tc: 0, tw: 0, th: 1, tl: 0, ts: 0, font: null, size: 0 };
    const stack: GState[] = [];
    let tm: Matrix = [...IDENTITY];
    let tlm: Matrix = IDENTITY;
    const moveTo = (tx: number, ty: number) => {
      tlm = mul([1, 0, 0, 1, tx, ty], tlm);
      tm = [...tlm];
    };
    // Moves the text matrix along its baseline (in place: `tm` is never shared).
    const advance = (tx: number) => {
      tm[4] += tx * tm[0];
      tm[5] += tx * tm[1];
    };
    unit.ops.forEach((op, opIndex) => {
      const a = op.operands;
      switch (op.operator) {
        case 'BMC':
          marked.push(replaced());
          return;
        case 'BDC':
          marked.push(replaced() || this.hasActualText(a[1], resources));
          return;
        case 'EMC':
          marked.pop();
          return;
        case 'q':
          stack.push({ ...gs });
          return;
        case 'Q':
          gs = stack.pop() ?? gs;
          return;
        case 'cm':
          if (a.length === 6) gs.ctm = mul(a.map(n) as Matrix, gs.ctm);
          return;
        case 'BT':
          tlm = IDENTITY;
          tm = [...IDENTITY];
          return;
        case 'Tc':
          gs.tc = n(a[0]);
          return;
        case 'Tw':
          gs.tw = n(a[0]);
          return;
        case 'Tz':
          gs.th = n(a[0]) / 100;
          return;
        case 'TL':
          gs.tl = n(a[0]);
          return;
        case 'Ts':
          gs.ts = n(a[0]);
          return;
        case 'Tf':
          gs.font = isName(a[0]) ? this.font(resources, a[0].raw) : null;
          gs.size = n(a[1]);
          return;
        case 'Td':
          moveTo(n(a[0]), n(a[1]));
          return;
        case 'TD':
          gs.tl = -n(a[1]);
          moveTo(n(a[0]), n(a[1]));
          return;
        case 'Tm':
          if (a.length === 6) {
            tlm = a.map(n) as Matrix;
            tm = [...tlm];
          }
          return;
        case 'T*':
          moveTo(0, -gs.tl);
          return;
        case 'Do': {
          if (depth >= MAX_FORM_DEPTH || !isName(a[0]) || !resources) return;
          const xobjects = this.file.resolve(resources.get('XObject'));
          const ref = isDict(xobjects) ? xobjects.get(a[0].raw) : undefined;
          const stream = this.file.resolve(ref);
          if (!(ref instanceof PdfRef) || !(stream instanceof PdfStream)) return;
          if (!isName(this.file.resolve(stream.dict.get('Subtype')), 'Form')) return;
          if (active.has(ref.num)) return;
          const matrix = this.file.resolve(stream.dict.get('Matrix'));
          const m =
            Array.isArray(matrix) && matrix.length === 6
              ? (matrix.map((v) => n(this.file.resolve(v))) as Matrix)
              : IDENTITY;
          active.add(ref.num);
          const inner = stream.dict.get('Resources') ?? resources;
          const form = this.formUnit(ref, stream);
          this.run(
            form,
            this.file.resolve(inner),
            mul(m, gs.ctm),
            height,
            glyphs,
            active,
            depth + 1,
            replaced(),
          );
          active.delete(ref.num);
          return;
        }
      }
      let shown: PdfValue[] | undefined;
      if (op.operator === 'Tj') shown = [a[0]];
      else if (op.operator === 'TJ' && Array.isArray(a[0])) shown = a[0];
      else if (op.operator === "'") {
        moveTo(0, -gs.tl);
        shown = [a[0]];
      } else if (op.operator === '"') {
        gs.tw = n(a[0]);
        gs.tc = n(a[1]);
        moveTo(0, -gs.tl);
        shown = [a[2]];
      }
      if (!shown || !gs.font) return;
      const font = gs.font;
      if (!unit.shows.has(opIndex))
        unit.shows.set(opIndex, { font, size: gs.size, tc: gs.tc, tw: gs.tw });
      let index = 0;
      const line = {
        tm: [...tm] as Matrix,
        ctm: gs.ctm,
        rise: gs.ts,
        top: gs.ts + font.ascent * gs.size,
        height,
      };
      for (const item of shown) {
        if (typeof item === 'number') {
          advance((-item / 1000) * gs.size * gs.th);
          continue;
        }
        if (!(item instanceof PdfRaw) || !/^[(<]/.test(item.text)) continue;
        for (const code of codesOf(item.text, font)) {
          const w = (font.width(code) / 1000) * gs.size;
          const space = font.bytesPerCode === 1 && code === 32 ? gs.tw : 0;
          glyphs.push({
            text: font.text(code),
            unit,
            op: opIndex,
            index: index++,
            at: { line, e: tm[4], f: tm[5], width: w * gs.th },
            replaced: replaced(),
          });
          advance((w + gs.tc + space) * gs.th);
        }
      }
    });
  }
}
