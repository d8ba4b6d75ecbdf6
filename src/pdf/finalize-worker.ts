import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { SigningCertConfig, SigningCertificate } from './certificate.ts';
import type { FinalizeInput } from './finalize.ts';

/**
 * Runs `finalizePdf` on a worker thread so the HTTP server's event loop never waits on PDF
 * parsing, drawing or hashing. One long-lived worker serves every call, one at a time (the
 * signing certificate is parsed once there); it is started on first use, does not keep the
 * process alive while idle, and is replaced if it dies.
 */

type Result = { sha256: string; size: number };
type Request = { id: number; input: FinalizeInput; certConfig: SigningCertConfig; outputPath: string };
type Response = { id: number; ok: true; result: Result } | { id: number; ok: false; name: string; message: string };

const ROLE = 'signet-finalize-worker';

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, { resolve: (r: Result) => void; reject: (e: Error) => void }>();

function startWorker(): Worker {
  // The sources are TypeScript run without a build: the worker registers tsx (as
  // bin/signet.js does) before importing this module in worker mode.
  const self = new URL(import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(self)}); })`;
  const w = new Worker(bootstrap, { eval: true, workerData: { role: ROLE } });
  w.on('message', (msg: Response) => {
    const call = pending.get(msg.id);
    if (!call) return;
    pending.delete(msg.id);
    if (msg.ok) call.resolve(msg.result);
    else call.reject(Object.assign(new Error(msg.message), { name: msg.name }));
    if (pending.size === 0) w.unref();
  });
  const failAll = (err: Error) => {
    if (worker === w) worker = null;
    for (const [id, call] of pending) {
      pending.delete(id);
      call.reject(err);
    }
  };
  w.on('error', failAll);
  w.on('exit', (code) => failAll(new Error(`the PDF worker exited with code ${code}`)));
  return w;
}

/** `finalizePdf(input, loadSigningCertificate(certConfig), outputPath)`, on the worker thread. */
export function finalizeInWorker(input: FinalizeInput, certConfig: SigningCertConfig, outputPath: string): Promise<Result> {
  worker ??= startWorker();
  worker.ref();
  const id = nextId++;
  const request: Request = {
    id,
    input,
    // Only what the certificate needs crosses the thread boundary.
    certConfig: {
      dataDir: certConfig.dataDir,
      signingCertP12: certConfig.signingCertP12,
      signingCertPassword: certConfig.signingCertPassword,
    },
    outputPath,
  };
  return new Promise<Result>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker!.postMessage(request);
  });
}

/** Stops the worker (graceful shutdown, tests); calls still running are rejected. */
export async function closeFinalizeWorker(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await w.terminate();
}

async function serveRequests(): Promise<void> {
  const { finalizePdf } = await import('./finalize.ts');
  const { loadSigningCertificate } = await import('./certificate.ts');
  const certificates = new Map<string, Promise<SigningCertificate>>();
  const certificateFor = (config: SigningCertConfig) => {
    const key = JSON.stringify([config.dataDir, config.signingCertP12 ?? null, config.signingCertPassword ?? null]);
    let cert = certificates.get(key);
    if (!cert) {
      cert = loadSigningCertificate(config);
      certificates.set(key, cert);
      // A failure (missing file, wrong password) is retried on the next call, not cached.
      cert.catch(() => certificates.delete(key));
    }
    return cert;
  };
  // One document at a time: the machine's cores belong to the API first.
  let queue: Promise<unknown> = Promise.resolve();
  parentPort!.on('message', (req: Request) => {
    queue = queue.then(async () => {
      let response: Response;
      try {
        const cert = await certificateFor(req.certConfig);
        response = { id: req.id, ok: true, result: await finalizePdf(req.input, cert, req.outputPath) };
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        response = { id: req.id, ok: false, name: e.name, message: e.message };
      }
      parentPort!.postMessage(response);
    });
  });
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) void serveRequests();
