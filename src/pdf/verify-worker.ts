import { BoundedWorker, WorkerLimitError } from './bounded-worker.ts';
import { PdfLimitError, PdfSyntaxError, PdfUnsupportedError } from './syntax.ts';
import type { VerificationReport } from './verify.ts';

/**
 * `verifyPdf` on a bounded worker thread: hashing up to 50 MB and parsing an untrusted file
 * never runs on the API's event loop, and a file that asks for too much memory or time fails
 * alone (WorkerLimitError / PdfLimitError).
 */

export const VERIFY_LIMITS = { heapMb: 256, deadlineMs: 60_000 };

const REBUILT: Record<string, new (message: string) => Error> = {
  PdfLimitError,
  PdfSyntaxError,
  PdfUnsupportedError,
  WorkerLimitError,
};

let worker: BoundedWorker<{ path: string }, VerificationReport> | null = null;

export function verifyInWorker(path: string): Promise<VerificationReport> {
  worker ??= new BoundedWorker<{ path: string }, VerificationReport>({
    moduleUrl: import.meta.url,
    exportName: 'verifyTask',
    deadlineMs: VERIFY_LIMITS.deadlineMs,
    resourceLimits: { maxOldGenerationSizeMb: VERIFY_LIMITS.heapMb },
    rebuild: (name, message) => (REBUILT[name] ? new REBUILT[name](message) : undefined),
  });
  return worker.run({ path });
}

export async function closeVerifyWorker(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await w.close();
}

/** Runs on the worker thread (worker-host.ts calls it by name). */
export async function verifyTask(task: { path: string }): Promise<VerificationReport> {
  const { verifyPdf } = await import('./verify.ts');
  return verifyPdf(task.path);
}
