import {
  PDF_LIMITS,
  PdfLimitError,
  PdfName,
  PdfRaw,
  PdfRef,
  PdfSyntaxError,
  type PdfDict,
  type PdfValue,
} from './syntax.ts';

/**
 * Reading PDF syntax (ISO 32000 7.2-7.3): tokens and the values they make, from any byte source.
 * The reader (reader.ts) finds where objects are; the lexer reads one at a given position.
 */

/** Random access to bytes: a Buffer, or a file read lazily in windows. `at` is -1 past the end. */
export interface ByteSource {
  readonly length: number;
  at(pos: number): number;
  slice(start: number, end: number): Buffer;
}

export function bufferSource(buf: Buffer): ByteSource {
  return {
    length: buf.length,
    at: (p) => (p < buf.length ? buf[p] : -1),
    slice: (s, e) => buf.subarray(s, e),
  };
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
        while (
          this.src.at(this.pos) !== 0x0a &&
          this.src.at(this.pos) !== 0x0d &&
          this.src.at(this.pos) !== -1
        )
          this.pos++;
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
      throw new PdfLimitError(
        `arrays and dictionaries nested deeper than ${PDF_LIMITS.nestingDepth} at byte ${this.pos}`,
      );
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
