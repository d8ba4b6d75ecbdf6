import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { BackupLocation } from './location.ts';

/** Passes bytes through while counting them and computing their SHA-256. */
export class Meter extends Transform {
  bytes = 0;
  private readonly hash: Hash = createHash('sha256');

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

interface Written {
  bytes: number;
  sha256: string;
}

/**
 * Writes `name` from what `produce` hands to its `write` (which waits while the destination is
 * busy, so memory holds a chunk or two whatever the size), and returns its size and hash. A
 * failing destination fails the producer's next write instead of leaving it waiting.
 */
export async function writeStreamed(
  location: BackupLocation,
  name: string,
  produce: (write: (chunk: string | Buffer) => Promise<void>) => Promise<void>,
): Promise<Written> {
  const meter = new Meter();
  let failure: unknown = null;
  const upload = location.write(name, meter).catch((err: unknown) => {
    failure = err;
    meter.destroy();
  });
  const write = async (chunk: string | Buffer) => {
    if (failure) throw failure;
    if (!meter.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          meter.off('drain', done);
          meter.off('close', done);
          resolve();
        };
        meter.on('drain', done);
        meter.on('close', done);
      });
      if (failure) throw failure;
    }
  };
  try {
    await produce(write);
    meter.end();
  } catch (err) {
    meter.destroy(err as Error);
    await upload;
    throw err;
  }
  await upload;
  if (failure) throw failure;
  return { bytes: meter.bytes, sha256: meter.digest() };
}
