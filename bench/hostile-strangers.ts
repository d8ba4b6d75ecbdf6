import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { detachedCms, signatureBombPdf } from '../test/hostile/signature-bomb.ts';

/*
 * The strangers of bench/hostile-verify.ts, on a thread of their own: producing 8 × 50 MB bodies
 * must not slow the customer's requests in the benchmark's own event loop, or the figures would
 * measure the benchmark. Told 'attack', each sends the PDF to /verify again as soon as it is
 * answered; told 'hold', each stops after its answer, and the thread says 'idle' once none is
 * waiting for one; told 'stop', it reports the answers by status and ends.
 */

const { url, strangers, bytes } = workerData as { url: string; strangers: number; bytes: number };
const cms = detachedCms();
const answers = new Map<string, number>();
let mode: 'attack' | 'hold' | 'stop' = 'hold';
const modeNow = () => mode;
let sending = 0;
let wake: () => void = () => undefined;
let woken = new Promise<void>((resolve) => (wake = resolve));
parentPort?.on('message', (message: 'attack' | 'hold' | 'stop') => {
  mode = message;
  wake();
  woken = new Promise<void>((resolve) => (wake = resolve));
  if (mode === 'hold' && sending === 0) parentPort?.postMessage('idle');
});

async function send(): Promise<string> {
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
    return String(res.status);
  } catch (err) {
    return (err as { cause?: { code?: string } }).cause?.code ?? 'error';
  }
}

async function stranger(): Promise<void> {
  while (mode !== 'stop') {
    if (mode === 'hold') {
      await woken;
      continue;
    }
    sending++;
    const status = await send();
    sending--;
    answers.set(status, (answers.get(status) ?? 0) + 1);
    // `mode` may have changed while the request was out.
    if (modeNow() === 'hold' && sending === 0) parentPort?.postMessage('idle');
  }
}

await Promise.all(Array.from({ length: strangers }, () => stranger()));
parentPort?.postMessage([...answers]);
