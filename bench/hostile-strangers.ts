import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { detachedCms, signatureBombPdf } from '../test/hostile/signature-bomb.ts';

/*
 * The strangers of bench/hostile-verify.ts, on a thread of their own: producing 8 × 50 MB bodies
 * must not slow the customer's requests in the benchmark's own event loop, or the figures would
 * measure the benchmark. Each sends the PDF to /verify again as soon as it is answered, until
 * told to stop, then reports the answers by status.
 */

const { url, strangers, bytes } = workerData as { url: string; strangers: number; bytes: number };
const cms = detachedCms();
const answers = new Map<string, number>();
let done = false;
parentPort?.on('message', () => {
  done = true;
});

async function stranger(): Promise<void> {
  while (!done) {
    let status: string;
    try {
      const res = await fetch(`${url}/verify/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/pdf' },
        body: Readable.toWeb(
          Readable.from(signatureBombPdf(bytes, 50, cms, 'distinct')),
        ) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      await res.arrayBuffer();
      status = String(res.status);
    } catch (err) {
      status = (err as { cause?: { code?: string } }).cause?.code ?? 'error';
    }
    answers.set(status, (answers.get(status) ?? 0) + 1);
  }
}

await Promise.all(Array.from({ length: strangers }, () => stranger()));
parentPort?.postMessage([...answers]);
