import sharp from 'sharp';

/*
 * Pixel budgets for images strangers send. A PNG or JPEG says in its first bytes how many pixels
 * it holds, and decoding costs memory in proportion (3-4 bytes a pixel) however small the file:
 * a 500 KB PNG may declare 20000×20000 pixels. So the header is read first and the image refused
 * before anything decodes it.
 */

/** docs/limits.md. */
export const IMAGE_LIMITS = {
  /** A drawn signature or initials (the signing pad makes well under 1 MP). */
  signaturePixels: 4_000_000,
  /** A photo of an identity document (a 24-megapixel phone photo fits). */
  evidencePixels: 25_000_000,
  /** An image a signer attaches through a `file` field (a scan or a phone photo). */
  uploadPixels: 25_000_000,
  /** How much of a streamed upload is kept to read its image header from (JPEG's may follow 64 KB of EXIF). */
  headerBytes: 256 * 1024,
  /** What a normalized signature is scaled down to fit, in pixels. */
  signatureBox: { width: 1200, height: 400 },
} as const;

interface Dimensions {
  width: number;
  height: number;
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk (bytes 16-23), without decoding; undefined when it is not one. */
export function pngDimensions(bytes: Buffer): Dimensions | undefined {
  if (
    bytes.length < 24 ||
    !bytes.subarray(0, 8).equals(PNG_MAGIC) ||
    bytes.toString('latin1', 12, 16) !== 'IHDR'
  )
    return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Width and height from the header of any image sharp reads (PNG, JPEG, WebP…), without decoding pixels. */
export async function headerDimensions(bytes: Buffer): Promise<Dimensions | undefined> {
  try {
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    return meta.width && meta.height ? { width: meta.width, height: meta.height } : undefined;
  } catch {
    return undefined;
  }
}

const megapixels = (pixels: number) => `${Math.round(pixels / 100_000) / 10} megapixels`;

/** A sentence saying the image is over its budget, or undefined when it is within. */
export function overBudget(d: Dimensions, maxPixels: number, what: string): string | undefined {
  if (d.width * d.height <= maxPixels) return undefined;
  return `${what} is ${d.width}×${d.height} pixels; at most ${megapixels(maxPixels)} are accepted`;
}

export class ImageRefused extends Error {}

/**
 * A drawn signature as Signet stores it: decoded once (never past `signaturePixels`), trimmed of
 * its empty margins, scaled to fit `signatureBox`, re-encoded as a small palette PNG. Sealing then
 * only ever meets images Signet wrote. Rejects with `ImageRefused` when it cannot be decoded.
 */
export async function normalizeSignaturePng(bytes: Buffer): Promise<Buffer> {
  const dims = pngDimensions(bytes);
  if (!dims) throw new ImageRefused('is not a PNG image');
  const over = overBudget(dims, IMAGE_LIMITS.signaturePixels, 'the drawn signature');
  if (over) throw new ImageRefused(over);
  const encode = (trim: boolean) => {
    let img = sharp(bytes, { limitInputPixels: IMAGE_LIMITS.signaturePixels, failOn: 'error' });
    if (trim) img = img.trim();
    return img
      .resize({ ...IMAGE_LIMITS.signatureBox, fit: 'inside', withoutEnlargement: true })
      .png({ compressionLevel: 9, palette: true })
      .toBuffer();
  };
  try {
    return await encode(true);
  } catch {
    // A blank pad has nothing to trim to; keep it whole.
    try {
      return await encode(false);
    } catch {
      throw new ImageRefused('cannot be decoded as a PNG image');
    }
  }
}
