/**
 * The PDF object model used by the incremental signer: just enough to read the objects we
 * must change (catalog, page tree, pages, AcroForm) and write them back byte-faithfully.
 * Strings, booleans and null are kept exactly as written (`PdfRaw`), so copying a dictionary
 * never re-encodes its text.
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

/** The bounds every PDF read is held to (README, "Limits"). */
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

// ---------------------------------------------------------------------------------------
// Reading

/** Random access to bytes: a Buffer, or a file read lazily in windows. `at` is -1 past the end. */
export interface ByteSource {
  readonly length: number;
  at(pos: number): number;
  slice(start: number, end: number): Buffer;
}

export function bufferSource(buf: Buffer): ByteSource {
  return { length: buf.length, at: (p) => (p < buf.length ? buf[p] : -1), slice: (s, e) => buf.subarray(s, e) };
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isRegular = (c: number) => c >= 0 && !WHITESPACE.has(c) && !DELIMITERS.has(c);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

export class Lexer {
  /** Arrays and dictionaries open around the value being read (bounded by `PDF_LIMITS.nestingDepth`). */
  private depth = 0;

  constructor(
    readonly src: ByteSource,
    public pos = 0,
  ) {}

  fail(what: string): never {
    throw new PdfSyntaxError(`${what} at byte ${this.pos}`);
  }

  skipSpace(): void {
    for (;;) {
      const c = this.src.at(this.pos);
      if (WHITESPACE.has(c)) this.pos++;
      else if (c === 0x25 /* % */) {
        while (this.src.at(this.pos) !== 0x0a && this.src.at(this.pos) !== 0x0d && this.src.at(this.pos) !== -1) this.pos++;
      } else return;
    }
  }

  /** Reads a run of regular characters (a keyword or number) without moving past it on mismatch. */
  peekWord(): string {
    this.skipSpace();
    let end = this.pos;
    while (isRegular(this.src.at(end))) end++;
    return this.src.slice(this.pos, end).toString('latin1');
  }

  word(): string {
    const w = this.peekWord();
    this.pos += w.length;
    return w;
  }

  expectWord(expected: string): void {
    if (this.word() !== expected) this.fail(`expected "${expected}"`);
  }

  int(): number {
    const w = this.word();
    if (!/^\d+$/.test(w)) this.fail(`expected an integer, found "${w}"`);
    return Number(w);
  }

  value(): PdfValue {
    this.skipSpace();
    const c = this.src.at(this.pos);
    if (c === 0x2f) return this.name();
    if (c === 0x3c) return this.src.at(this.pos + 1) === 0x3c ? this.dict() : this.hexString();
    if (c === 0x28) return this.literalString();
    if (c === 0x5b) return this.array();
    if (c === -1) this.fail('unexpected end of data');
    const start = this.pos;
    const w = this.word();
    if (w === 'true' || w === 'false' || w === 'null') return new PdfRaw(w);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(w)) {
      this.pos = start;
      this.fail(`unexpected token "${w}"`);
    }
    if (/^\d+$/.test(w)) {
      // `12 0 R` is a reference; anything else leaves the lexer after the first number.
      const afterFirst = this.pos;
      const gen = this.peekWord();
      if (/^\d+$/.test(gen)) {
        this.pos += gen.length;
        if (this.peekWord() === 'R') {
          this.pos += 1;
          return new PdfRef(Number(w), Number(gen));
        }
      }
      this.pos = afterFirst;
    }
    return Number(w);
  }

  private name(): PdfName {
    this.pos++;
    const start = this.pos;
    while (isRegular(this.src.at(this.pos))) this.pos++;
    return new PdfName(this.src.slice(start, this.pos).toString('latin1'));
  }

  private hexString(): PdfRaw {
    const start = this.pos;
    for (;;) {
      const c = this.src.at(++this.pos);
      if (c === -1) this.fail('unterminated hex string');
      if (c === 0x3e) break;
    }
    this.pos++;
    return new PdfRaw(this.src.slice(start, this.pos).toString('latin1'));
  }

  private literalString(): PdfRaw {
    const start = this.pos;
    let depth = 0;
    for (;;) {
      const c = this.src.at(this.pos++);
      if (c === -1) this.fail('unterminated string');
      if (c === 0x5c) this.pos++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) break;
    }
    return new PdfRaw(this.src.slice(start, this.pos).toString('latin1'));
  }

  private nested<T>(read: () => T): T {
    if (this.depth >= PDF_LIMITS.nestingDepth) {
      throw new PdfLimitError(`arrays and dictionaries nested deeper than ${PDF_LIMITS.nestingDepth} at byte ${this.pos}`);
    }
    this.depth++;
    try {
      return read();
    } finally {
      this.depth--;
    }
  }

  private array(): PdfValue[] {
    this.pos++;
    return this.nested(() => {
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (this.src.at(this.pos) === 0x5d) {
          this.pos++;
          return items;
        }
        items.push(this.value());
      }
    });
  }

  private dict(): PdfDict {
    this.pos += 2;
    return this.nested(() => {
      const d: PdfDict = new Map();
      for (;;) {
        this.skipSpace();
        if (this.src.at(this.pos) === 0x3e && this.src.at(this.pos + 1) === 0x3e) {
          this.pos += 2;
          return d;
        }
        if (this.src.at(this.pos) !== 0x2f) this.fail('expected a name as dictionary key');
        const key = this.name();
        d.set(key.raw, this.value());
      }
    });
  }

  /**
   * After a dictionary: when the `stream` keyword follows, moves to the first data byte and
   * returns true.
   */
  streamStart(): boolean {
    if (this.peekWord() !== 'stream') return false;
    this.pos += 6;
    if (this.src.at(this.pos) === 0x0d) this.pos++;
    if (this.src.at(this.pos) === 0x0a) this.pos++;
    return true;
  }

  /** True when the next token is an integer (used to tell xref subsection headers from `trailer`). */
  atDigit(): boolean {
    this.skipSpace();
    return isDigit(this.src.at(this.pos));
  }
}

// ---------------------------------------------------------------------------------------
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
