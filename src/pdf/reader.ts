import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import {
  Lexer,
  PDF_LIMITS,
  PdfLimitError,
  PdfRef,
  PdfStream,
  PdfSyntaxError,
  PdfUnsupportedError,
  bufferSource,
  isDict,
  isName,
  type ByteSource,
  type PdfDict,
  type PdfValue,
} from './syntax.ts';

/**
 * Random access to the objects of a PDF file without loading the file: reads the
 * cross-reference sections (classic tables and xref streams, following /Prev), then parses
 * single objects on demand. Reads are synchronous because they are few and small (a page
 * tree, a catalog) and the reader runs in a worker thread, never on the API's event loop.
 *
 * Every read is bounded (`PDF_LIMITS`): inflated bytes per stream and per file, entry counts
 * against the bytes that would have to hold them, nesting and resolution depth. A file over a
 * bound throws `PdfLimitError` before the work it asks for is done.
 */

type XrefEntry =
  | { kind: 'free' }
  | { kind: 'offset'; offset: number; gen: number }
  | { kind: 'compressed'; stream: number; index: number };

const WINDOW = 64 * 1024;

/** Positional reads from a file descriptor or a buffer. */
interface RandomAccess {
  readonly length: number;
  /** Fills `buf` from `position`; returns the count read (0 at the end). */
  readAt(buf: Buffer, offset: number, length: number, position: number): number;
  close(): void;
}

function fileAccess(fd: number, upTo = Infinity): RandomAccess {
  return {
    length: Math.min(fstatSync(fd).size, upTo),
    readAt: (buf, offset, length, position) => readSync(fd, buf, offset, length, position),
    close: () => closeSync(fd),
  };
}

function bufferAccess(data: Buffer): RandomAccess {
  return {
    length: data.length,
    readAt: (buf, offset, length, position) => data.copy(buf, offset, position, Math.min(data.length, position + length)),
    close: () => {},
  };
}

/** Reads a file through one cached window, so the lexer can ask for any byte. */
class FileSource implements ByteSource {
  private winStart = 0;
  private win: Buffer = Buffer.alloc(0);
  readonly length: number;
  constructor(private readonly io: RandomAccess) {
    this.length = io.length;
  }

  at(pos: number): number {
    if (pos < 0 || pos >= this.length) return -1;
    if (pos < this.winStart || pos >= this.winStart + this.win.length) this.load(pos);
    return this.win[pos - this.winStart];
  }

  slice(start: number, end: number): Buffer {
    end = Math.min(end, this.length);
    if (start >= this.winStart && end <= this.winStart + this.win.length) {
      return this.win.subarray(start - this.winStart, end - this.winStart);
    }
    return this.read(start, end - start);
  }

  read(start: number, length: number): Buffer {
    if (start < 0 || start >= this.length) return Buffer.alloc(0);
    const out = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.length - start)));
    let done = 0;
    while (done < out.length) {
      const n = this.io.readAt(out, done, out.length - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return out.subarray(0, done);
  }

  private load(pos: number): void {
    // A little behind `pos` too: the lexer sometimes steps back after a peek.
    this.winStart = Math.max(0, pos - 1024);
    this.win = this.read(this.winStart, WINDOW);
  }
}

export class PdfFile {
  readonly size: number;
  /** The newest trailer dictionary (for xref streams: the stream's dictionary). */
  trailer: PdfDict = new Map();
  /** Offset of the newest cross-reference section: the /Prev of our update. */
  startxref = 0;
  /** Whether the newest section is an xref stream, so our update uses one too. */
  usesXrefStream = false;
  private readonly src: FileSource;
  private readonly xref = new Map<number, XrefEntry>();
  private readonly cache = new Map<number, PdfValue>();
  private readonly objectStreams = new Map<number, Map<number, PdfValue>>();
  /** Object streams being decoded right now: one met again is a cycle. */
  private readonly loading = new Set<number>();
  /** `get` calls open on the stack (an object's /Length in another object stream…). */
  private resolving = 0;
  /** Decoded stream bytes so far, against `PDF_LIMITS.fileInflateBytes`. */
  private inflated = 0;

  private constructor(private readonly io: RandomAccess) {
    this.size = io.length;
    this.src = new FileSource(io);
  }

  /** `upTo`: read the file as if it ended there (an earlier revision of an incrementally updated file). */
  static open(path: string, upTo?: number): PdfFile {
    return PdfFile.read(fileAccess(openSync(path, 'r'), upTo));
  }

  /** The same reader over bytes in memory (uploads checked in the intake worker). */
  static fromBuffer(data: Buffer): PdfFile {
    return PdfFile.read(bufferAccess(data));
  }

  private static read(io: RandomAccess): PdfFile {
    const file = new PdfFile(io);
    try {
      file.readXref();
    } catch (err) {
      file.close();
      throw err;
    }
    return file;
  }

  close(): void {
    this.io.close();
  }

  /** Fills `buf` from `position` (streams the original into the output); returns the count read. */
  readInto(buf: Buffer, position: number): number {
    return this.io.readAt(buf, 0, Math.min(buf.length, this.size - position), position);
  }

  /** Where the newest revision keeps object `num` (a changed location means a later revision redefined it). */
  location(num: number): string | undefined {
    const e = this.xref.get(num);
    if (!e || e.kind === 'free') return undefined;
    // A compressed object also moves when its object stream is redefined.
    return e.kind === 'offset' ? `@${e.offset}` : `${e.stream}#${e.index}${this.location(e.stream) ?? ''}`;
  }

  /** Numbers of the objects in use. */
  objectNumbers(): number[] {
    return [...this.xref.keys()].filter((n) => this.location(n) !== undefined);
  }

  /** Highest object number in use plus one: where our new objects start. */
  get nextObjectNumber(): number {
    const size = this.trailer.get('Size');
    let max = typeof size === 'number' ? size : 0;
    for (const n of this.xref.keys()) max = Math.max(max, n + 1);
    return max;
  }

  resolve(v: PdfValue | undefined): PdfValue | undefined {
    return v instanceof PdfRef ? this.get(v.num) : v;
  }

  /** The object with this number (a `PdfStream` without data for streams), or undefined when free. */
  get(num: number): PdfValue | undefined {
    const cached = this.cache.get(num);
    if (cached !== undefined) return cached;
    const entry = this.xref.get(num);
    if (!entry || entry.kind === 'free') return undefined;
    if (this.resolving >= PDF_LIMITS.resolveDepth) throw new PdfLimitError(`object ${num} is reached through more than ${PDF_LIMITS.resolveDepth} other objects`);
    this.resolving++;
    let value: PdfValue | undefined;
    try {
      if (entry.kind === 'offset') value = this.readIndirect(entry.offset, num);
      else value = this.objectStream(entry.stream).get(num);
    } finally {
      this.resolving--;
    }
    if (value !== undefined) this.cache.set(num, value);
    return value;
  }

  /** The decoded data of a stream (Flate, with or without a PNG predictor), within the limits. */
  streamData(stream: PdfStream): Buffer {
    if (stream.data) return this.decode(stream.dict, stream.data);
    const length = this.resolve(stream.dict.get('Length'));
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) throw new PdfSyntaxError('stream without a valid /Length');
    if (length > this.size - stream.fileOffset) throw new PdfSyntaxError(`stream at byte ${stream.fileOffset} is longer than the file`);
    if (length > PDF_LIMITS.streamRawBytes) throw new PdfLimitError(`a stream of ${length} bytes is larger than the ${PDF_LIMITS.streamRawBytes} read at once`);
    const raw = this.src.read(stream.fileOffset, length);
    const after = new Lexer(this.src, stream.fileOffset + length);
    if (raw.length !== length || after.peekWord() !== 'endstream') {
      throw new PdfSyntaxError(`stream at byte ${stream.fileOffset} does not match its /Length`);
    }
    return this.decode(stream.dict, raw);
  }

  private decode(d: PdfDict, raw: Buffer): Buffer {
    const budget = Math.min(PDF_LIMITS.streamInflateBytes, PDF_LIMITS.fileInflateBytes - this.inflated);
    const data = decodeStream(d, raw, budget);
    this.inflated += data.length;
    return data;
  }

  private readIndirect(offset: number, expectedNum: number): PdfValue {
    const lx = new Lexer(this.src, offset);
    const num = lx.int();
    lx.int();
    lx.expectWord('obj');
    if (num !== expectedNum) throw new PdfSyntaxError(`xref points object ${expectedNum} at object ${num}`);
    const value = lx.value();
    if (isDict(value) && lx.streamStart()) return new PdfStream(value, null, lx.pos);
    return value;
  }

  private objectStream(streamNum: number): Map<number, PdfValue> {
    let objects = this.objectStreams.get(streamNum);
    if (objects) return objects;
    // An object stream is never itself compressed (PDF 32000 7.5.7), so no chain of them can loop.
    if (this.xref.get(streamNum)?.kind !== 'offset') throw new PdfSyntaxError(`object stream ${streamNum} is not a plain object`);
    if (this.loading.has(streamNum)) throw new PdfSyntaxError(`object stream ${streamNum} refers to itself`);
    this.loading.add(streamNum);
    try {
      const stream = this.get(streamNum);
      if (!(stream instanceof PdfStream)) throw new PdfSyntaxError(`object stream ${streamNum} is missing`);
      const data = this.streamData(stream);
      const n = stream.dict.get('N');
      const first = stream.dict.get('First');
      if (!isCount(n) || !isCount(first) || first > data.length) throw new PdfSyntaxError('object stream without a valid /N or /First');
      // Each entry of the index takes at least four bytes ("1 0 "): more would be a lie to allocate for.
      if (n > first / 4 + 1) throw new PdfSyntaxError(`object stream ${streamNum} claims ${n} objects in a ${first}-byte index`);
      const lx = new Lexer(bufferSource(data));
      const index: Array<[number, number]> = [];
      for (let i = 0; i < n; i++) index.push([lx.int(), lx.int()]);
      objects = new Map();
      for (const [num, rel] of index) {
        lx.pos = first + rel;
        objects.set(num, lx.value());
      }
      this.objectStreams.set(streamNum, objects);
      return objects;
    } finally {
      this.loading.delete(streamNum);
    }
  }

  // -------------------------------------------------------------------------------------
  // Cross-reference sections

  private readXref(): void {
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
      if (seen.has(offset) || offset >= this.size) throw new PdfSyntaxError(`bad xref offset ${offset}`);
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
    if (this.trailer.has('Encrypt')) throw new PdfUnsupportedError('encrypted PDFs cannot be signed');
    if (!(this.trailer.get('Root') instanceof PdfRef)) throw new PdfSyntaxError('trailer without /Root');
  }

  private readSection(offset: number): { entries: Map<number, XrefEntry>; trailer: PdfDict; isStream: boolean } {
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
      if (count * 18 > this.size - lx.pos) throw new PdfSyntaxError(`an xref subsection claims ${count} entries the file cannot hold`);
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
    if (!Array.isArray(w) || w.length < 3 || !w.every((x) => isCount(x) && x <= 8) || !isCount(size)) {
      throw new PdfSyntaxError('xref stream without a valid /W or /Size');
    }
    const [w0, w1, w2] = w as number[];
    const rowSize = w0 + w1 + w2;
    if (rowSize === 0) throw new PdfSyntaxError('xref stream whose rows are 0 bytes wide');
    const index = d.get('Index') ?? [0, size];
    if (!Array.isArray(index) || index.length % 2 !== 0 || !index.every(isCount)) throw new PdfSyntaxError('xref stream with an invalid /Index');
    const data = this.streamData(new PdfStream(d, null, lx.pos));
    // Checked before anything is built: the rows /Index claims must be in the decoded data.
    let rows = 0;
    for (let i = 1; i < index.length; i += 2) rows += index[i] as number;
    if (rows * rowSize > data.length) throw new PdfSyntaxError(`xref stream claims ${rows} entries in ${data.length} bytes`);
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
        if (pos + rowSize > data.length) throw new PdfSyntaxError('xref stream shorter than its /Index');
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

const isCount = (v: PdfValue | undefined): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Decodes a stream's data, refusing (`PdfLimitError`) to produce more than `maxBytes`. */
function decodeStream(d: PdfDict, raw: Buffer, maxBytes: number): Buffer {
  const filter = d.get('Filter');
  const filters = Array.isArray(filter) ? filter : filter === undefined ? [] : [filter];
  if (filters.length === 0) return raw;
  if (filters.length > 1 || !isName(filters[0], 'FlateDecode')) {
    throw new PdfUnsupportedError('only FlateDecode object and xref streams are supported');
  }
  let data: Buffer;
  try {
    data = inflateSync(raw, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PdfLimitError(`a stream inflates to more than ${maxBytes} bytes (limits: ${PDF_LIMITS.streamInflateBytes} per stream, ${PDF_LIMITS.fileInflateBytes} per file)`);
    }
    throw new PdfSyntaxError('corrupt Flate stream');
  }
  let parms = d.get('DecodeParms');
  if (Array.isArray(parms)) parms = parms[0];
  if (!isDict(parms)) return data;
  const predictor = parms.get('Predictor');
  if (typeof predictor !== 'number' || predictor < 10) {
    if (typeof predictor === 'number' && predictor > 1) {
      throw new PdfUnsupportedError('TIFF predictor in a cross-reference stream');
    }
    return data;
  }
  const columns = parms.get('Columns') ?? 1;
  if (!isCount(columns) || columns < 1) throw new PdfSyntaxError('a PNG predictor with an invalid /Columns');
  return unpredictPng(data, columns);
}

/** Undoes the PNG row filters xref streams use (each row: a filter byte, then `columns` bytes). */
function unpredictPng(data: Buffer, columns: number): Buffer {
  const rows = Math.floor(data.length / (columns + 1));
  const out = Buffer.alloc(rows * columns);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (columns + 1)];
    const src = r * (columns + 1) + 1;
    const dst = r * columns;
    for (let c = 0; c < columns; c++) {
      const left = c > 0 ? out[dst + c - 1] : 0;
      const up = r > 0 ? out[dst - columns + c] : 0;
      const upLeft = r > 0 && c > 0 ? out[dst - columns + c - 1] : 0;
      const x = data[src + c];
      let v: number;
      if (type === 0) v = x;
      else if (type === 1) v = x + left;
      else if (type === 2) v = x + up;
      else if (type === 3) v = x + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        v = x + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      } else throw new PdfSyntaxError(`unknown PNG predictor ${type}`);
      out[dst + c] = v & 0xff;
    }
  }
  return out;
}
