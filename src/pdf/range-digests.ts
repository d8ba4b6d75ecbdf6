import { createHash } from 'node:crypto';
import type { PdfFile } from './reader.ts';

const CHUNK = 1 << 20;

/** The digest of a signature's byte range with one algorithm. */
export type RangeDigest = (range: number[], algorithm: string) => Buffer;

/**
 * Each distinct byte range is hashed once per algorithm per verification: signatures that cover
 * the same bytes share the digest, so a file of many signatures over the whole file (a cheap way
 * to ask for gigabytes of hashing) costs one pass over it, not one per signature.
 */
export function rangeDigests(file: PdfFile): RangeDigest {
  const done = new Map<string, Buffer>();
  return (range, algorithm) => {
    const key = `${algorithm.toLowerCase()} ${range.join(' ')}`;
    let digest = done.get(key);
    if (!digest) {
      digest = hashRanges(file, range, algorithm);
      done.set(key, digest);
    }
    return digest;
  };
}

function hashRanges(file: PdfFile, range: number[], algorithm: string): Buffer {
  const hash = createHash(algorithm);
  const buf = Buffer.allocUnsafe(CHUNK);
  for (const [start, length] of [
    [range[0], range[1]],
    [range[2], range[3]],
  ]) {
    for (let pos = start; pos < start + length; ) {
      const n = file.readInto(buf.subarray(0, Math.min(CHUNK, start + length - pos)), pos);
      if (n <= 0) break;
      hash.update(buf.subarray(0, n));
      pos += n;
    }
  }
  return hash.digest();
}
