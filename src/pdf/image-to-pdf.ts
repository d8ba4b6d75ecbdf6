import { promisify } from 'node:util';
import zlib from 'node:zlib';
import sharp, { type Metadata, type OutputInfo } from 'sharp';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
  type PDFRef,
} from 'pdf-lib';

export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp';

/**
 * Images above this many pixels are refused: decoded, an image takes 3 bytes a pixel, so the
 * limit bounds what one upload can cost (150 MB at most). 50 megapixels is more than an A3 page
 * scanned at 400 dpi or a 48-megapixel phone photo.
 */
const MAX_IMAGE_PIXELS = 50_000_000;

/** A4's long side in PDF points; the page takes the image's proportions at this size. */
const PAGE_LONG_SIDE = 841.89;

const deflate = promisify(zlib.deflate);

export class ImageConversionError extends Error {
  constructor(
    message: string,
    /** `unreadable`: the bytes are not a decodable image; `too_large`: over `MAX_IMAGE_PIXELS`. */
    readonly reason: 'unreadable' | 'too_large',
  ) {
    super(message);
  }
}

const unreadable = () =>
  new ImageConversionError(
    'The image cannot be decoded; it may be truncated or corrupt',
    'unreadable',
  );

async function embedJpeg(
  pdf: PDFDocument,
  jpeg: Buffer,
): Promise<{ ref: PDFRef; width: number; height: number }> {
  try {
    // A copy with its own ArrayBuffer: pdf-lib's JPEG reader views `bytes.buffer` from offset 0,
    // which for a Buffer sliced from Node's shared pool is other data.
    const image = await pdf.embedJpg(new Uint8Array(jpeg));
    return { ref: image.ref, width: image.width, height: image.height };
  } catch {
    throw unreadable();
  }
}

/**
 * Adds the image to `pdf` as an image XObject and returns it with its upright size in pixels.
 *
 * All decoding and compressing runs on libuv's thread pool (sharp, zlib), never on the event loop:
 * pdf-lib's own PNG embedding decodes and re-compresses in JavaScript, which blocks the server for
 * seconds on a page-sized scan. PDF readers decode JPEG themselves, so an upright JPEG goes in as
 * it is; a rotated JPEG (EXIF orientation, which pdf-lib ignores) and a WEBP (mostly lossy photos,
 * which PDF cannot hold) are re-encoded as JPEG; a PNG stays lossless as 8-bit RGB under Flate.
 * Transparency is flattened onto white, as a viewer would show it on the page.
 */
async function embedImage(
  pdf: PDFDocument,
  bytes: Buffer,
  type: ImageType,
  upright: boolean,
): Promise<{ ref: PDFRef; width: number; height: number }> {
  if (type === 'image/jpeg' && upright) return embedJpeg(pdf, bytes);
  const image = () =>
    sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS })
      .autoOrient()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb');
  if (type !== 'image/png') {
    let jpeg: Buffer;
    try {
      jpeg = await image().jpeg({ quality: 90 }).toBuffer();
    } catch {
      throw unreadable();
    }
    return embedJpeg(pdf, jpeg);
  }
  let pixels: { data: Buffer; info: OutputInfo };
  try {
    pixels = await image().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch {
    throw unreadable();
  }
  const { width, height, channels } = pixels.info;
  if (channels !== 3) throw unreadable();
  const stream = pdf.context.stream(await deflate(pixels.data), {
    Type: 'XObject',
    Subtype: 'Image',
    Width: width,
    Height: height,
    ColorSpace: 'DeviceRGB',
    BitsPerComponent: 8,
    Filter: 'FlateDecode',
  });
  return { ref: pdf.context.register(stream), width, height };
}

/**
 * A one-page PDF showing the image over the whole page. The page has the image's proportions,
 * with its longer side as long as an A4 page's, so a scanned A4 sheet becomes an A4 page and
 * field positions (percentages of the page) mean the same as on the image.
 */
export async function imageToPdf(bytes: Buffer, type: ImageType): Promise<Uint8Array> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ImageConversionError(
      'The image cannot be read; it may be truncated or corrupt',
      'unreadable',
    );
  }
  if (!meta.width || !meta.height) throw unreadable();
  if (meta.width * meta.height > MAX_IMAGE_PIXELS) {
    throw new ImageConversionError(
      `The image is ${meta.width}×${meta.height} pixels; at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels can be converted to a PDF`,
      'too_large',
    );
  }
  const pdf = await PDFDocument.create();
  const image = await embedImage(
    pdf,
    bytes,
    type,
    meta.orientation === undefined || meta.orientation === 1,
  );
  const scale = PAGE_LONG_SIDE / Math.max(image.width, image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  const page = pdf.addPage([width, height]);
  const name = page.node.newXObject('Image', image.ref);
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(width, 0, 0, height, 0, 0),
    drawObject(name),
    popGraphicsState(),
  );
  return pdf.save();
}
