import type { FileSource } from './file-source.ts';
import { Lexer } from './lexer.ts';
import {
  PdfRef,
  PdfStream,
  PdfSyntaxError,
  PdfUnsupportedError,
  isCount,
  isDict,
  isName,
  type PdfDict,
} from './syntax.ts';

/*
 * The cross-reference sections of a PDF (ISO 32000 7.5.4-7.5.8): classic tables and xref streams,
 * the newest first and then each /Prev, which say where every object of the newest revision is.
 * Counts are checked against the bytes that would have to hold them before anything is built.
 */

export type XrefEntry =
  | { kind: 'free' }
  | { kind: 'offset'; offset: number; gen: number }
  | { kind: 'compressed'; stream: number; index: number };

/** What the newest section says beside the entries. */
interface CrossReference {
  /** The newest trailer dictionary (for xref streams: the stream's dictionary). */
  trailer: PdfDict;
  /** Offset of the newest cross-reference section. */
  startxref: number;
  /** Whether the newest section is an xref stream. */
  usesXrefStream: boolean;
}

/**
 * Reads every section into `xref` (newer entries win). `streamData` decodes an xref stream within
 * the file's inflate budget; it may resolve a /Length through the entries read so far.
 */
export function readCrossReference(
  src: FileSource,
  xref: Map<number, XrefEntry>,
  streamData: (stream: PdfStream) => Buffer,
): CrossReference {
  const reader = new SectionReader(src, xref, streamData);
  reader.read();
  return {
    trailer: reader.trailer,
    startxref: reader.startxref,
    usesXrefStream: reader.usesXrefStream,
  };
}

class SectionReader {
  trailer: PdfDict = new Map();
  startxref = 0;
  usesXrefStream = false;
  private readonly size: number;

  constructor(
    private readonly src: FileSource,
    private readonly xref: Map<number, XrefEntry>,
    private readonly streamData: (stream: PdfStream) => Buffer,
  ) {
    this.size = src.length;
  }

  read(): void {
    const tailStart = Math.max(0, this.size - 2048);
    const tail = this.src.read(tailStart, this.size - tailStart).toString('latin1');
    const at = tail.lastIndexOf('startxref');
    if (at < 0) throw new PdfSyntaxError('no startxref');
    const m = /^startxref\s+(\d+)/.exec(tail.slice(at));
    if (!m) throw new PdfSyntaxError('unreadable startxref');
    this.startxref = Number(m[1]);

    const seen = new Set<number>();
    let offset: number | undefined = this.startxref;
    let newest = true;
    while (offset !== undefined) {
      if (seen.has(offset) || offset >= this.size)
        throw new PdfSyntaxError(`bad xref offset ${offset}`);
      seen.add(offset);
      const { entries, trailer, isStream } = this.readSection(offset);
      // Newer sections win; a section's own free entries do not hide its hybrid XRefStm.
      for (const [num, e] of entries) if (!this.xref.has(num)) this.xref.set(num, e);
      if (newest) {
        this.trailer = trailer;
        this.usesXrefStream = isStream;
        newest = false;
      }
      const prev = trailer.get('Prev');
      offset = typeof prev === 'number' ? prev : undefined;
    }
    if (this.trailer.has('Encrypt'))
      throw new PdfUnsupportedError('encrypted PDFs cannot be signed');
    if (!(this.trailer.get('Root') instanceof PdfRef))
      throw new PdfSyntaxError('trailer without /Root');
  }

  private readSection(offset: number): {
    entries: Map<number, XrefEntry>;
    trailer: PdfDict;
    isStream: boolean;
  } {
    const lx = new Lexer(this.src, offset);
    if (lx.peekWord() !== 'xref') {
      const { entries, dict } = this.readXrefStream(offset);
      return { entries, trailer: dict, isStream: true };
    }
    lx.word();
    const entries = new Map<number, XrefEntry>();
    while (lx.atDigit()) {
      const start = lx.int();
      const count = lx.int();
      // Every entry is 20 bytes of the file: a count the rest of the file cannot hold is refused before the loop.
      if (count * 18 > this.size - lx.pos)
        throw new PdfSyntaxError(`an xref subsection claims ${count} entries the file cannot hold`);
      for (let i = 0; i < count; i++) {
        const off = lx.int();
        const gen = lx.int();
        const type = lx.word();
        if (type === 'n') entries.set(start + i, { kind: 'offset', offset: off, gen });
        else if (type === 'f') entries.set(start + i, { kind: 'free' });
        else lx.fail(`bad xref entry type "${type}"`);
      }
    }
    lx.expectWord('trailer');
    const trailer = lx.value();
    if (!isDict(trailer)) throw new PdfSyntaxError(`trailer at byte ${offset} is not a dictionary`);
    const hybrid = trailer.get('XRefStm');
    if (typeof hybrid === 'number') {
      for (const [num, e] of this.readXrefStream(hybrid).entries) {
        const mine = entries.get(num);
        if (!mine || mine.kind === 'free') entries.set(num, e);
      }
    }
    return { entries, trailer, isStream: false };
  }

  private readXrefStream(offset: number): { entries: Map<number, XrefEntry>; dict: PdfDict } {
    const lx = new Lexer(this.src, offset);
    lx.int();
    lx.int();
    lx.expectWord('obj');
    const d = lx.value();
    if (!isDict(d) || !isName(d.get('Type'), 'XRef') || !lx.streamStart()) {
      throw new PdfSyntaxError(`no xref table or stream at byte ${offset}`);
    }
    const w = d.get('W');
    const size = d.get('Size');
    if (
      !Array.isArray(w) ||
      w.length < 3 ||
      !w.every((x) => isCount(x) && x <= 8) ||
      !isCount(size)
    ) {
      throw new PdfSyntaxError('xref stream without a valid /W or /Size');
    }
    const [w0, w1, w2] = w as number[];
    const rowSize = w0 + w1 + w2;
    if (rowSize === 0) throw new PdfSyntaxError('xref stream whose rows are 0 bytes wide');
    const index = d.get('Index') ?? [0, size];
    if (!Array.isArray(index) || index.length % 2 !== 0 || !index.every(isCount))
      throw new PdfSyntaxError('xref stream with an invalid /Index');
    const data = this.streamData(new PdfStream(d, null, lx.pos));
    // Checked before anything is built: the rows /Index claims must be in the decoded data.
    let rows = 0;
    for (let i = 1; i < index.length; i += 2) rows += index[i] as number;
    if (rows * rowSize > data.length)
      throw new PdfSyntaxError(`xref stream claims ${rows} entries in ${data.length} bytes`);
    const entries = new Map<number, XrefEntry>();
    const field = (pos: number, width: number) => {
      let v = 0;
      for (let i = 0; i < width; i++) v = v * 256 + data[pos + i];
      return v;
    };
    let pos = 0;
    for (let i = 0; i + 1 < index.length; i += 2) {
      const start = index[i] as number;
      const count = index[i + 1] as number;
      for (let k = 0; k < count; k++) {
        if (pos + rowSize > data.length)
          throw new PdfSyntaxError('xref stream shorter than its /Index');
        const type = w0 === 0 ? 1 : field(pos, w0);
        const a = field(pos + w0, w1);
        const b = field(pos + w0 + w1, w2);
        pos += rowSize;
        const num = start + k;
        if (type === 0) entries.set(num, { kind: 'free' });
        else if (type === 1) entries.set(num, { kind: 'offset', offset: a, gen: b });
        else if (type === 2) entries.set(num, { kind: 'compressed', stream: a, index: b });
      }
    }
    return { entries, dict: d };
  }
}
