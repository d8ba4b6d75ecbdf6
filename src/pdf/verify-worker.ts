import { WorkerLimitError } from './bounded-worker.ts';
import type { PdfWorkers } from './pdf-workers.ts';
import { PdfLimitError, PdfSyntaxError, PdfUnsupportedError } from './syntax.ts';
import type { VerificationReport } from './verify.ts';

/**
 * `verifyPdf` on a bounded worker thread: hashing up to 50 MB and parsing an untrusted file
 * never runs on the API's event loop, and a file that asks for too much memory or time fails
 * alone (WorkerLimitError / PdfLimitError). Two threads: one for the public check (no key) and
 * one for callers with a key, so a customer's file never waits behind strangers' files. The
 * public one runs at the lowest CPU priority (nice 19, on Linux): a stranger's costly file takes
 * only the CPU that customers' requests leave.
 */

const VERIFY_LIMITS = { heapMb: 256, deadlineMs: 60_000, maxWaiting: 64 };

/** The public thread's nice value: the lowest priority there is. */
const PUBLIC_NICENESS = 19;

/** Whose file it is: anyone's (the public `/verify` page) or a caller's with an API key. */
export type VerifyLane = 'public' | 'keyed';

const REBUILT: Record<string, new (message: string) => Error> = {
  PdfLimitError,
  PdfSyntaxError,
  PdfUnsupportedError,
  WorkerLimitError,
};

export function verifyInWorker(
  workers: PdfWorkers,
  path: string,
  lane: VerifyLane,
): Promise<VerificationReport> {
  const worker = workers.pool<{ path: string }, VerificationReport>(`verify-${lane}`, {
    moduleUrl: import.meta.url,
    exportName: 'verifyTask',
    deadlineMs: VERIFY_LIMITS.deadlineMs,
    resourceLimits: { maxOldGenerationSizeMb: VERIFY_LIMITS.heapMb },
    rebuild: (name, message) => (REBUILT[name] ? new REBUILT[name](message) : undefined),
    maxWaiting: VERIFY_LIMITS.maxWaiting,
    niceness: lane === 'public' ? PUBLIC_NICENESS : undefined,
  });
  return worker.run({ path });
}

/**
 * Runs on the worker thread (worker-host.ts calls it by name).
 * @public (called by name, so the dead-export check keeps it)
 */
export async function verifyTask(task: { path: string }): Promise<VerificationReport> {
  const { verifyPdf } = await import('./verify.ts');
  return verifyPdf(task.path);
}
