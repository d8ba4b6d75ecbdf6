import { closeSync, fstatSync, readSync } from 'node:fs';
import type { ByteSource } from './lexer.ts';

/*
 * The bytes of a PDF the reader works on: a file read through positional reads (never loaded
 * whole), or a buffer already in memory, behind one interface.
 */

const WINDOW = 64 * 1024;

/** Positional reads from a file descriptor or a buffer. */
export interface RandomAccess {
  readonly length: number;
  /** Fills `buf` from `position`; returns the count read (0 at the end). */
  readAt(buf: Buffer, offset: number, length: number, position: number): number;
  close(): void;
}

export function fileAccess(fd: number, upTo = Infinity): RandomAccess {
  return {
    length: Math.min(fstatSync(fd).size, upTo),
    readAt: (buf, offset, length, position) => readSync(fd, buf, offset, length, position),
    close: () => closeSync(fd),
  };
}

export function bufferAccess(data: Buffer): RandomAccess {
  return {
    length: data.length,
    readAt: (buf, offset, length, position) =>
      data.copy(buf, offset, position, Math.min(data.length, position + length)),
    close: () => {},
  };
}

/** Reads a file through one cached window, so the lexer can ask for any byte. */
export class FileSource implements ByteSource {
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
