import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { SNIFF_BYTES, sniffType, type SniffedType } from '../../pdf/sniff.ts';
import type { Storage } from '../../storage/storage.ts';

/** More bytes arrived than the upload allows. */
export class UploadTooLarge extends Error {}

/** The first bytes are not those of the declared type (`sniffed` is what they are, if anything known). */
export class UploadTypeMismatch extends Error {
  constructor(
    readonly sniffed: SniffedType | null,
    readonly empty: boolean,
  ) {
    super('upload type mismatch');
  }
}

/** The client went away before sending every byte. */
export class UploadAborted extends Error {}

interface StreamedFile {
  size: number;
  /** SHA-256 hex of exactly the bytes received. */
  sha256: string;
}

/**
 * Counts and hashes the bytes on their way to storage, and holds back the first few until they
 * prove the declared type, so a mismatched file never starts to be written. Errors (too large,
 * wrong type) abort the storage write.
 */
class UploadMeter extends Transform {
  size = 0;
  readonly hash = createHash('sha256');
  private head: Buffer[] = [];
  private headBytes = 0;
  private verified = false;

  constructor(
    private readonly expected: SniffedType,
    private readonly maxBytes: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) callback(new UploadTooLarge());
    else {
      this.hash.update(chunk);
      if (this.verified) callback(null, chunk);
      else {
        this.head.push(chunk);
        this.headBytes += chunk.length;
        if (this.headBytes < SNIFF_BYTES) callback();
        else this.release(callback);
      }
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.verified) callback();
    else this.release(callback);
  }

  private release(callback: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    const sniffed = sniffType(head);
    if (sniffed !== this.expected) {
      callback(new UploadTypeMismatch(sniffed, head.length === 0));
      return;
    }
    this.verified = true;
    callback(null, head);
  }
}

/**
 * Streams a request body into storage at `key` without ever holding it whole: memory stays at a
 * few chunks whatever the size. Rejects with `UploadTooLarge`, `UploadTypeMismatch` or
 * `UploadAborted` (the storage write is then abandoned; the caller deletes `key` in case a driver
 * kept a partial object). The body stream itself is never destroyed here, so the caller can still
 * answer on its connection.
 */
export async function streamToStorage(
  storage: Storage,
  key: string,
  body: Readable,
  options: { contentType: SniffedType; maxBytes: number },
): Promise<StreamedFile> {
  const meter = new UploadMeter(options.contentType, options.maxBytes);
  // The meter may fail before the driver starts reading it (it awaits a directory or a connection
  // first); the first failure is kept here and is the one reported.
  let failure: Error | undefined;
  meter.on('error', (err) => {
    failure ??= err;
  });
  // A request stream fails or closes early only when the client went away mid-body.
  const onError = () => meter.destroy(new UploadAborted());
  const onClose = () => {
    if (!body.readableEnded) meter.destroy(new UploadAborted());
  };
  body.once('error', onError);
  body.once('close', onClose);
  // `pipe`, not `pipeline`: pipeline would destroy the request on a meter error, and with it the
  // socket the 413/415 answer must go out on.
  body.pipe(meter);
  try {
    await storage.put(key, meter, options.contentType);
  } catch (err) {
    throw failure ?? err;
  } finally {
    body.unpipe(meter);
    body.off('error', onError);
    body.off('close', onClose);
    if (!body.readableEnded) body.pause();
  }
  if (failure) throw failure;
  return { size: meter.size, sha256: meter.hash.digest('hex') };
}
