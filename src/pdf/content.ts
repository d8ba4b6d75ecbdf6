import { deflateSync } from 'node:zlib';
import { JpegEmbedder, PDFContext, PngEmbedder } from 'pdf-lib';
import type { Slice } from '../fonts/families.ts';
import type { FontCache } from '../fonts/font-cache.ts';
import { type ShapedLine, TextEngine, type TextStyle } from '../fonts/shaper.ts';
import { signatureFamilies } from '../fonts/typed-signature.ts';
import { IMAGE_LIMITS, overBudget, pngDimensions } from '../images/image-limits.ts';
import { lineOps } from './glyph-ops.ts';
import { PdfFonts } from './pdf-fonts.ts';
import {
  dict,
  formatNumber,
  name,
  type PdfDict,
  PdfLimitError,
  PdfRef,
  PdfStream,
  type PdfValue,
} from './syntax.ts';

/**
 * Drawing for the stamps and the certificate page. Text is shaped (fonts/shaper.ts) and drawn
 * as glyphs of embedded font subsets (pdf-fonts.ts), marked with the text they draw
 * (/ActualText, glyph-ops.ts) so copying or extracting it gives the words in reading order. pdf-lib decodes
 * PNG/JPEG into image XObjects inside its own `PDFContext`, whose object numbers continue the
 * original file's; we write the content streams ourselves.
 */

/** The kinds of text drawn: body text, headings, hashes, and typed signatures. */
export type FontKey = 'sans' | 'sans-bold' | 'mono' | 'signature';

const MONO = ['mono'] as const;
const STYLES: Record<FontKey, Omit<TextStyle, 'locale'>> = {
  sans: { key: 'sans', weight: 400 },
  'sans-bold': { key: 'sans-bold', weight: 700 },
  mono: { key: 'mono', weight: 400, preferred: () => MONO },
  signature: { key: 'signature', weight: 400, preferred: signatureFamilies },
};

/** What text drawing needs: the process's fonts, and the document's locale when known. */
export interface TextSetup {
  fonts: FontCache;
  /** BCP 47; picks the Han face (Japanese, Korean, Simplified or Traditional Chinese). */
  locale?: string | null;
}

interface EmbeddedImage {
  ref: PdfRef;
  width: number;
  height: number;
}

/** The new objects of one finalization: fonts and images (shared by all stamps) and numbering. */
export class ObjectFactory {
  readonly context = PDFContext.create();
  readonly engine: TextEngine;
  readonly fonts = new PdfFonts(() => this.alloc());
  private readonly images = new Map<string, Promise<EmbeddedImage>>();

  constructor(
    firstObjectNumber: number,
    private readonly text: TextSetup,
  ) {
    this.context.largestObjectNumber = firstObjectNumber - 1;
    this.engine = new TextEngine(text.fonts);
  }

  /** Font files the text drawn so far needed and that are not loaded yet (drawing is then redone). */
  get missingFonts(): ReadonlySet<Slice> {
    return this.engine.missing;
  }

  style(key: FontKey): TextStyle {
    return { ...STYLES[key], locale: this.text.locale };
  }

  /** One line of text, shaped; `rtl` forces its paragraph direction. */
  shape(key: FontKey, text: string, rtl?: boolean): ShapedLine {
    return this.engine.shapeLine(text, this.style(key), rtl);
  }

  alloc(): PdfRef {
    const ref = this.context.nextRef();
    return new PdfRef(ref.objectNumber, ref.generationNumber);
  }

  /** Embeds a `data:image/png;base64,…` (or JPEG) URL once, however many fields use it. */
  image(dataUrl: string): Promise<EmbeddedImage> {
    let image = this.images.get(dataUrl);
    if (!image) {
      image = this.embedImage(dataUrl);
      this.images.set(dataUrl, image);
    }
    return image;
  }

  private async embedImage(dataUrl: string): Promise<EmbeddedImage> {
    const m = /^data:image\/(png|jpeg|jpg);base64,([A-Za-z0-9+/=\s]+)$/.exec(dataUrl);
    if (!m) throw new Error('a drawn signature must be a base64 PNG or JPEG data URL');
    const bytes = Buffer.from(m[2], 'base64');
    // Signatures are normalized when submitted; this guards values stored before that (pdf-lib decodes PNGs whole).
    const dims = m[1] === 'png' ? pngDimensions(bytes) : undefined;
    const over = dims && overBudget(dims, IMAGE_LIMITS.signaturePixels, 'a drawn signature');
    if (over) throw new PdfLimitError(over);
    const embedder = m[1] === 'png' ? await PngEmbedder.for(bytes) : await JpegEmbedder.for(bytes);
    const libRef = this.context.nextRef();
    await embedder.embedIntoContext(this.context, libRef);
    return {
      ref: new PdfRef(libRef.objectNumber, libRef.generationNumber),
      width: embedder.width,
      height: embedder.height,
    };
  }

  /** The embedded font subsets, once all drawing is done. */
  fontObjects(): Promise<Array<{ ref: PdfRef; value: PdfValue }>> {
    return this.fonts.objects();
  }

  /** The serialized pdf-lib objects (images), ready to append. */
  libraryObjects(): Array<{ ref: PdfRef; bytes: Buffer }> {
    return this.context.enumerateIndirectObjects().map(([ref, obj]) => {
      const body = new Uint8Array(obj.sizeInBytes());
      obj.copyBytesInto(body, 0);
      return {
        ref: new PdfRef(ref.objectNumber, ref.generationNumber),
        bytes: Buffer.concat([
          Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`, 'latin1'),
          body,
          Buffer.from('\nendobj\n', 'latin1'),
        ]),
      };
    });
  }
}

const f = formatNumber;

/** One content stream being written, remembering which fonts and images it needs. */
export class Canvas {
  private readonly ops: string[] = [];
  private readonly fontsUsed = new Map<string, PdfRef>();
  private readonly imagesUsed = new Map<string, PdfRef>();

  constructor(private readonly factory: ObjectFactory) {}

  /** Width of one line of text, in points. */
  width(key: FontKey, text: string, size: number): number {
    return (this.factory.shape(key, text).width * size) / 1000;
  }

  /** One line of text starting at `x` (its left edge, whatever its direction). */
  text(
    key: FontKey,
    size: number,
    x: number,
    y: number,
    text: string | ShapedLine,
    gray = 0,
  ): void {
    const line = typeof text === 'string' ? this.factory.shape(key, text) : text;
    const ops = lineOps(line, this.factory.fonts, this.factory.style(key).weight, size, x, y, gray);
    for (const font of ops.fonts) this.fontsUsed.set(font.resource, font.ref);
    if (ops.content) this.ops.push(ops.content);
  }

  image(ref: PdfRef, x: number, y: number, w: number, h: number): void {
    const resource = `SgIm${ref.num}`;
    this.imagesUsed.set(resource, ref);
    this.ops.push(`q ${f(w)} 0 0 ${f(h)} ${f(x)} ${f(y)} cm /${resource} Do Q`);
  }

  line(x1: number, y1: number, x2: number, y2: number, width: number, gray: number): void {
    this.ops.push(`q ${f(gray)} G ${f(width)} w ${f(x1)} ${f(y1)} m ${f(x2)} ${f(y2)} l S Q`);
  }

  /** Runs `draw` with drawing clipped to a rectangle, so an overflowing value stays in its box. */
  clipped(x: number, y: number, w: number, h: number, draw: () => void): void {
    this.ops.push(`q ${f(x)} ${f(y)} ${f(w)} ${f(h)} re W n`);
    draw();
    this.ops.push('Q');
  }

  get isEmpty(): boolean {
    return this.ops.length === 0;
  }

  resources(): PdfDict {
    const fonts = new Map([...this.fontsUsed].map(([k, ref]) => [k, ref] as const));
    const images = new Map([...this.imagesUsed].map(([k, ref]) => [k, ref] as const));
    return dict({
      ProcSet: [name('PDF'), name('Text'), name('ImageB'), name('ImageC')],
      Font: fonts.size ? fonts : undefined,
      XObject: images.size ? images : undefined,
    });
  }

  /** The content as a compressed stream with `extra` entries (a form XObject's /BBox…). */
  stream(extra: PdfDict = new Map()): PdfStream {
    const data = deflateSync(Buffer.from(this.ops.join('\n'), 'latin1'));
    const d = new Map(extra);
    d.set('Filter', name('FlateDecode'));
    return new PdfStream(d, data);
  }
}
