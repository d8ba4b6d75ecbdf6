import { FontCache } from '../fonts/font-cache.ts';
import { type BoundedWorker, WorkerLimitError } from './bounded-worker.ts';
import type { PdfWorkers } from './pdf-workers.ts';
import type { SigningCertConfig, SigningCertificate } from './certificate.ts';
import type { FinalizeInput, FinalizeResult } from './finalize.ts';
import type { LongTermConfig } from './long-term.ts';
import { PdfLimitError } from './syntax.ts';
import { TrustServiceError } from './trust-client.ts';

/**
 * Runs `finalizePdf` on a worker thread so the HTTP server's event loop never waits on PDF
 * parsing, drawing or hashing. One worker serves every call, one at a time (the signing
 * certificate is parsed once there), held to `FINALIZE_LIMITS`: a document that needs more
 * memory or time rejects with `WorkerLimitError` (or `PdfLimitError` from the reader), and
 * only that document: the thread is replaced for the next one.
 */

type Result = FinalizeResult;
type Request =
  | {
      input: FinalizeInput;
      certConfig: SigningCertConfig;
      longTerm: LongTermConfig;
      outputPath: string;
    }
  | { warm: SigningCertConfig };

/** What the worker needs of the configuration: the certificate, and the PAdES level with its TSA (B-B when absent). */
type FinalizeConfig = SigningCertConfig & { longTerm?: LongTermConfig };

/** The bounds of one sealing (docs/limits.md). */
const FINALIZE_LIMITS = {
  /** Heap of the sealing thread. */
  heapMb: 256,
  /** Default of `FINALIZE_TIMEOUT_MS`. */
  deadlineMs: 120_000,
  /**
   * Sealings waiting for the thread. The job runner seals at most as many documents at once as
   * it runs jobs (10), so this is never reached by it; a full queue fails the job, retried later.
   */
  maxWaiting: 32,
};

const REBUILT: Record<string, new (message: string) => Error> = {
  PdfLimitError,
  WorkerLimitError,
  TrustServiceError,
};
const rebuild = (name: string, message: string) =>
  REBUILT[name] ? new REBUILT[name](message) : undefined;

function workerFor(workers: PdfWorkers, deadlineMs: number): BoundedWorker<Request, Result> {
  return workers.pool<Request, Result>(
    'finalize',
    {
      moduleUrl: import.meta.url,
      exportName: 'finalizeTask',
      deadlineMs,
      resourceLimits: { maxOldGenerationSizeMb: FINALIZE_LIMITS.heapMb },
      rebuild,
      maxWaiting: FINALIZE_LIMITS.maxWaiting,
    },
    String(deadlineMs),
  );
}

// Only what the certificate needs crosses the thread boundary: the generated certificate's
// password travels in the task message (never logged, never written anywhere).
const certOnly = (c: SigningCertConfig): SigningCertConfig => ({
  dataDir: c.dataDir,
  signingCertP12: c.signingCertP12,
  signingCertPassword: c.signingCertPassword,
  generatedCertPassword: c.generatedCertPassword,
});

/** `finalizePdf(input, loadSigningCertificate(certConfig), outputPath)`, on the worker thread, within `deadlineMs`. */
export function finalizeInWorker(
  workers: PdfWorkers,
  input: FinalizeInput,
  certConfig: FinalizeConfig,
  outputPath: string,
  deadlineMs = FINALIZE_LIMITS.deadlineMs,
): Promise<Result> {
  const { level, tsa } = certConfig.longTerm ?? { level: 'B-B', tsa: null };
  return workerFor(workers, deadlineMs).run({
    input,
    certConfig: certOnly(certConfig),
    longTerm: { level, tsa: tsa ? { ...tsa } : null },
    outputPath,
  });
}

/**
 * Starts the thread and loads its code and the certificate now (server start), so the first
 * sealing does not pay for them while requests are being served.
 */
export async function warmFinalizeWorker(
  workers: PdfWorkers,
  certConfig: SigningCertConfig,
  deadlineMs = FINALIZE_LIMITS.deadlineMs,
): Promise<void> {
  await workerFor(workers, deadlineMs).run({ warm: certOnly(certConfig) });
}

// ---------------------------------------------------------------------------------------
// On the worker thread

const certificates = new Map<string, Promise<SigningCertificate>>();
/** This thread's fonts: loaded by the first sealing that needs each, kept for the next. */
const fonts = new FontCache();

/**
 * The task the worker thread runs (worker-host.ts calls it by name).
 * @public (called by name, so the dead-export check keeps it)
 */
export async function finalizeTask(req: Request): Promise<Result> {
  const { finalizePdf } = await import('./finalize.ts');
  const { loadSigningCertificate } = await import('./certificate.ts');
  const config = 'warm' in req ? req.warm : req.certConfig;
  const key = JSON.stringify([
    config.dataDir,
    config.signingCertP12 ?? null,
    config.signingCertPassword ?? null,
    config.generatedCertPassword,
  ]);
  let cert = certificates.get(key);
  if (!cert) {
    cert = loadSigningCertificate(config);
    certificates.set(key, cert);
    // A failure (missing file, wrong password) is retried on the next call, not cached.
    cert.catch(() => certificates.delete(key));
  }
  if ('warm' in req) {
    const { subsetter } = await import('../fonts/subset.ts');
    await Promise.all([cert, fonts.warm(), subsetter()]);
    return { sha256: '', size: 0 } as Result;
  }
  return finalizePdf(req.input, await cert, req.outputPath, req.longTerm, fonts);
}
