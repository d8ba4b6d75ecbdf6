/**
 * The PDF object model used by the incremental signer: just enough to read the objects we
 * must change (catalog, page tree, pages, AcroForm) and write them back byte-faithfully.
 * Strings, booleans and null are kept exactly as written (`PdfRaw`), so copying a dictionary
 * never re-encodes its text. Reading the syntax is lexer.ts; writing it is at the end here.
 */

export class PdfName {
  /** `raw` is the name without its slash, with `#xx` escapes left as written. */
  constructor(readonly raw: string) {}
}

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A literal or hex string, `true`, `false` or `null`, exactly as it appeared in the file. */
export class PdfRaw {
  constructor(readonly text: string) {}
}

export type PdfDict = Map<string, PdfValue>;

/**
 * A stream. Streams read from the file carry only where their data is (`fileOffset`); the
 * reader loads the data on demand. Streams we create carry their (already encoded) `data`.
 */
export class PdfStream {
  constructor(
    readonly dict: PdfDict,
    readonly data: Buffer | null,
    readonly fileOffset: number = -1,
  ) {}
}

export type PdfValue = number | PdfName | PdfRef | PdfRaw | PdfValue[] | PdfDict | PdfStream;

/** Every error the PDF reader throws on account of the file's content is one of these. */
export class PdfError extends Error {
  override name = 'PdfError';
}

/** The file is not a PDF we can read without a rewrite (bad offsets, truncated objects…). */
export class PdfSyntaxError extends PdfError {
  override name = 'PdfSyntaxError';
}

/** A valid PDF we deliberately do not handle (encryption, unknown stream filters…). */
export class PdfUnsupportedError extends PdfError {
  override name = 'PdfUnsupportedError';
}

/**
 * The file asks for more than a bound of `PDF_LIMITS` (inflated bytes, nesting depth, entries):
 * refused before the work is done. Never repaired by a rewrite, which would meet the same bomb.
 */
export class PdfLimitError extends PdfError {
  override name = 'PdfLimitError';
}

/** The bounds every PDF read is held to (docs/limits.md). */
export const PDF_LIMITS = {
  /** Decoded bytes of one object or cross-reference stream. */
  streamInflateBytes: 32 * 1024 * 1024,
  /** Decoded bytes of all the streams one file read decodes. */
  fileInflateBytes: 128 * 1024 * 1024,
  /** Compressed bytes of one object or cross-reference stream. */
  streamRawBytes: 32 * 1024 * 1024,
  /** Nesting of arrays and dictionaries in one object. */
  nestingDepth: 64,
  /** Depth of the page tree. */
  pageTreeDepth: 64,
  /** Pages of one document. */
  pages: 100_000,
  /** Objects reached through other objects while resolving one (object stream chains). */
  resolveDepth: 16,
} as const;

export const isDict = (v: PdfValue | undefined): v is PdfDict => v instanceof Map;
export const isName = (v: PdfValue | undefined, raw?: string): v is PdfName =>
  v instanceof PdfName && (raw === undefined || v.raw === raw);
/** A non-negative integer: a count, size or offset as a file states it. */
export const isCount = (v: PdfValue | undefined): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function dict(entries: Record<string, PdfValue | undefined>): PdfDict {
  const d: PdfDict = new Map();
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) d.set(k, v);
  return d;
}

export const name = (raw: string) => new PdfName(raw);

/** A text string we write: a literal when ASCII, else UTF-16BE with its byte-order mark. */
export function pdfText(text: string): PdfRaw {
  if (/^[\x20-\x7e]*$/.test(text)) return new PdfRaw(`(${text.replace(/([\\()])/g, '\\$1')})`);
  const utf16 = Buffer.from(text, 'utf16le').swap16();
  return new PdfRaw(`<FEFF${utf16.toString('hex').toUpperCase()}>`);
}

// Writing

export function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const s = n.toFixed(4).replace(/\.?0+$/, '');
  return s === '-0' ? '0' : s;
}

export function serialize(v: PdfValue): string {
  if (typeof v === 'number') return formatNumber(v);
  if (v instanceof PdfName) return `/${v.raw}`;
  if (v instanceof PdfRef) return `${v.num} ${v.gen} R`;
  if (v instanceof PdfRaw) return v.text;
  if (Array.isArray(v)) return `[${v.map(serialize).join(' ')}]`;
  if (v instanceof PdfStream) throw new Error('a stream cannot be nested in another object');
  let out = '<<';
  for (const [k, val] of v) out += `/${k} ${serialize(val)}`;
  return `${out}>>`;
}

/** The bytes of `num gen obj … endobj` for a value or a stream we created. */
export function serializeIndirect(ref: PdfRef, v: PdfValue): Buffer {
  const head = `${ref.num} ${ref.gen} obj\n`;
  if (!(v instanceof PdfStream)) return Buffer.from(`${head}${serialize(v)}\nendobj\n`, 'latin1');
  if (!v.data) throw new Error('cannot copy a stream whose data was not loaded');
  const d = new Map(v.dict);
  d.set('Length', v.data.length);
  return Buffer.concat([
    Buffer.from(`${head}${serialize(d)}\nstream\n`, 'latin1'),
    v.data,
    Buffer.from('\nendstream\nendobj\n', 'latin1'),
  ]);
}
