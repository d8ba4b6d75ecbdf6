import { openSync } from 'node:fs';
import { bufferAccess, fileAccess, FileSource, type RandomAccess } from './file-source.ts';
import { bufferSource, Lexer } from './lexer.ts';
import { decodeStream } from './stream-decode.ts';
import {
  PDF_LIMITS,
  PdfLimitError,
  PdfRef,
  PdfStream,
  PdfSyntaxError,
  isCount,
  isDict,
  type PdfDict,
  type PdfValue,
} from './syntax.ts';
import { readCrossReference, type XrefEntry } from './xref.ts';

/**
 * Random access to the objects of a PDF file without loading the file: reads the
 * cross-reference sections (xref.ts), then parses single objects on demand. Reads are synchronous because they are few and small (a page
 * tree, a catalog) and the reader runs in a worker thread, never on the API's event loop.
 *
 * Every read is bounded (`PDF_LIMITS`): inflated bytes per stream and per file, entry counts
 * against the bytes that would have to hold them, nesting and resolution depth. A file over a
 * bound throws `PdfLimitError` before the work it asks for is done.
 */

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
      const newest = readCrossReference(file.src, file.xref, (stream) => file.streamData(stream));
      file.trailer = newest.trailer;
      file.startxref = newest.startxref;
      file.usesXrefStream = newest.usesXrefStream;
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
    return e.kind === 'offset'
      ? `@${e.offset}`
      : `${e.stream}#${e.index}${this.location(e.stream) ?? ''}`;
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
    if (this.resolving >= PDF_LIMITS.resolveDepth)
      throw new PdfLimitError(
        `object ${num} is reached through more than ${PDF_LIMITS.resolveDepth} other objects`,
      );
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
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0)
      throw new PdfSyntaxError('stream without a valid /Length');
    if (length > this.size - stream.fileOffset)
      throw new PdfSyntaxError(`stream at byte ${stream.fileOffset} is longer than the file`);
    if (length > PDF_LIMITS.streamRawBytes)
      throw new PdfLimitError(
        `a stream of ${length} bytes is larger than the ${PDF_LIMITS.streamRawBytes} read at once`,
      );
    const raw = this.src.read(stream.fileOffset, length);
    const after = new Lexer(this.src, stream.fileOffset + length);
    if (raw.length !== length || after.peekWord() !== 'endstream') {
      throw new PdfSyntaxError(`stream at byte ${stream.fileOffset} does not match its /Length`);
    }
    return this.decode(stream.dict, raw);
  }

  private decode(d: PdfDict, raw: Buffer): Buffer {
    const budget = Math.min(
      PDF_LIMITS.streamInflateBytes,
      PDF_LIMITS.fileInflateBytes - this.inflated,
    );
    const data = decodeStream(d, raw, budget);
    this.inflated += data.length;
    return data;
  }

  private readIndirect(offset: number, expectedNum: number): PdfValue {
    const lx = new Lexer(this.src, offset);
    const num = lx.int();
    lx.int();
    lx.expectWord('obj');
    if (num !== expectedNum)
      throw new PdfSyntaxError(`xref points object ${expectedNum} at object ${num}`);
    const value = lx.value();
    if (isDict(value) && lx.streamStart()) return new PdfStream(value, null, lx.pos);
    return value;
  }

  private objectStream(streamNum: number): Map<number, PdfValue> {
    let objects = this.objectStreams.get(streamNum);
    if (objects) return objects;
    // An object stream is never itself compressed (PDF 32000 7.5.7), so no chain of them can loop.
    if (this.xref.get(streamNum)?.kind !== 'offset')
      throw new PdfSyntaxError(`object stream ${streamNum} is not a plain object`);
    if (this.loading.has(streamNum))
      throw new PdfSyntaxError(`object stream ${streamNum} refers to itself`);
    this.loading.add(streamNum);
    try {
      const stream = this.get(streamNum);
      if (!(stream instanceof PdfStream))
        throw new PdfSyntaxError(`object stream ${streamNum} is missing`);
      const data = this.streamData(stream);
      const n = stream.dict.get('N');
      const first = stream.dict.get('First');
      if (!isCount(n) || !isCount(first) || first > data.length)
        throw new PdfSyntaxError('object stream without a valid /N or /First');
      // Each entry of the index takes at least four bytes ("1 0 "): more would be a lie to allocate for.
      if (n > first / 4 + 1)
        throw new PdfSyntaxError(
          `object stream ${streamNum} claims ${n} objects in a ${first}-byte index`,
        );
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
}
