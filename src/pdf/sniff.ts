/** The file types an upload may declare, recognised by their first bytes (magic numbers). */
export type SniffedType = 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/webp';

/** Bytes needed to tell every supported type apart (`RIFF????WEBP` is the longest). */
export const SNIFF_BYTES = 12;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const PDF = Buffer.from('%PDF-', 'latin1');
const RIFF = Buffer.from('RIFF', 'latin1');
const WEBP = Buffer.from('WEBP', 'latin1');

/**
 * The type the first bytes of a file announce, or null when they match none of the supported
 * types. A PDF must start with `%PDF-` right away: readers tolerate leading junk, but a file that
 * needs that tolerance is better refused at upload than found broken when it is signed.
 */
export function sniffType(head: Buffer): SniffedType | null {
  if (head.subarray(0, PDF.length).equals(PDF)) return 'application/pdf';
  if (head.subarray(0, PNG.length).equals(PNG)) return 'image/png';
  if (head.subarray(0, JPEG.length).equals(JPEG)) return 'image/jpeg';
  if (
    head.length >= SNIFF_BYTES &&
    head.subarray(0, 4).equals(RIFF) &&
    head.subarray(8, 12).equals(WEBP)
  )
    return 'image/webp';
  return null;
}
