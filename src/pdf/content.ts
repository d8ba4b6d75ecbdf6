import { deflateSync } from 'node:zlib';
// The embedder is named by the metrics package's own enum (pdf-lib's StandardFonts has the same
// values but is another type).
import { FontNames } from '@pdf-lib/standard-fonts';
import { JpegEmbedder, PDFContext, PngEmbedder, StandardFontEmbedder } from 'pdf-lib';
import { IMAGE_LIMITS, overBudget, pngDimensions } from '../images/image-limits.ts';
import {
  PdfLimitError,
  PdfRef,
  PdfStream,
  dict,
  formatNumber,
  name,
  type PdfDict,
} from './syntax.ts';

/**
 * Drawing for the stamps and the certificate page. pdf-lib supplies what is tedious to get
 * right (standard-font metrics and WinAnsi encoding, PNG/JPEG decoding into image XObjects)
 * inside its own `PDFContext`, whose object numbers continue the original file's; we write
 * the content streams ourselves so every value stays real, extractable text.
 */

export type FontKey = 'Helvetica' | 'Helvetica-Bold' | 'Times-Italic' | 'Courier' | 'ZapfDingbats';

const FONTS: Record<FontKey, { std: FontNames; resource: string }> = {
  Helvetica: { std: FontNames.Helvetica, resource: 'SgHelv' },
  'Helvetica-Bold': { std: FontNames.HelveticaBold, resource: 'SgHelvB' },
  'Times-Italic': { std: FontNames.TimesRomanItalic, resource: 'SgTiIt' },
  Courier: { std: FontNames.Courier, resource: 'SgCour' },
  ZapfDingbats: { std: FontNames.ZapfDingbats, resource: 'SgZaDb' },
};

/** Loading a standard font's metrics inflates and parses JSON; do it once per process. */
const embedders = new Map<FontKey, StandardFontEmbedder>();
function embedderFor(key: FontKey): StandardFontEmbedder {
  let embedder = embedders.get(key);
  if (!embedder) {
    embedder = StandardFontEmbedder.for(FONTS[key].std);
    embedders.set(key, embedder);
  }
  return embedder;
}

interface EmbeddedImage {
  ref: PdfRef;
  width: number;
  height: number;
}

/** The new objects of one finalization: fonts and images (shared by all stamps) and numbering. */
export class ObjectFactory {
  readonly context = PDFContext.create();
  private readonly fonts = new Map<FontKey, { embedder: StandardFontEmbedder; ref: PdfRef }>();
  private readonly images = new Map<string, Promise<EmbeddedImage>>();

  constructor(firstObjectNumber: number) {
    this.context.largestObjectNumber = firstObjectNumber - 1;
  }

  alloc(): PdfRef {
    const ref = this.context.nextRef();
    return new PdfRef(ref.objectNumber, ref.generationNumber);
  }

  font(key: FontKey): { embedder: StandardFontEmbedder; ref: PdfRef } {
    let font = this.fonts.get(key);
    if (!font) {
      const embedder = embedderFor(key);
      const libRef = this.context.nextRef();
      embedder.embedIntoContext(this.context, libRef);
      font = { embedder, ref: new PdfRef(libRef.objectNumber, libRef.generationNumber) };
      this.fonts.set(key, font);
    }
    return font;
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

  /** The serialized pdf-lib objects (fonts, images), ready to append. */
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

  /** Replaces what a standard font cannot encode (it has no glyph for it) with `?`. */
  printable(key: FontKey, text: string): string {
    const { embedder } = this.factory.font(key);
    let out = '';
    for (const ch of text.replace(/[\t\r\n]+/g, ' ')) {
      const cp = ch.codePointAt(0)!;
      out += cp >= 0x20 && embedder.encoding.canEncodeUnicodeCodePoint(cp) ? ch : '?';
    }
    return out;
  }

  width(key: FontKey, text: string, size: number): number {
    return this.factory.font(key).embedder.widthOfTextAtSize(this.printable(key, text), size);
  }

  text(key: FontKey, size: number, x: number, y: number, text: string, gray = 0): void {
    const { embedder, ref } = this.factory.font(key);
    const resource = FONTS[key].resource;
    this.fontsUsed.set(resource, ref);
    const hex = embedder.encodeText(this.printable(key, text)).toString();
    this.ops.push(
      `BT ${f(gray)} g /${resource} ${f(size)} Tf 1 0 0 1 ${f(x)} ${f(y)} Tm ${hex} Tj ET`,
    );
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
