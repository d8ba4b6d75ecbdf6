import { WorkerLimitError } from './bounded-worker.ts';
import type { PdfWorkers } from './pdf-workers.ts';
import type { TsaConfig } from './trust-client.ts';
import { TrustServiceError } from './trust-client.ts';
import { PdfLimitError, PdfSyntaxError } from './syntax.ts';

/**
 * Archive renewal of a B-LTA file, on a bounded worker thread: the validation data of its
 * newest document timestamp goes into the DSS, then a fresh document timestamp covers it all
 * (ETSI EN 319 142-1, "LTA" augmentation). Appends to the file at `path` in place.
 */

interface RenewResult {
  sha256: string;
  size: number;
  /** When the certificate of the new timestamp expires. */
  timestampExpiresAt: string | null;
}

const REBUILT: Record<string, new (message: string) => Error> = {
  PdfLimitError,
  PdfSyntaxError,
  WorkerLimitError,
  TrustServiceError,
};
export function renewInWorker(
  workers: PdfWorkers,
  path: string,
  tsa: TsaConfig,
): Promise<RenewResult> {
  const worker = workers.pool<{ path: string; tsa: TsaConfig }, RenewResult>('renew', {
    moduleUrl: import.meta.url,
    exportName: 'renewTask',
    deadlineMs: 120_000,
    resourceLimits: { maxOldGenerationSizeMb: 256 },
    // Renewals run one document after another (documents/timestamp-renewal.ts).
    maxWaiting: 8,
    rebuild: (name, message) => (REBUILT[name] ? new REBUILT[name](message) : undefined),
  });
  return worker.run({ path, tsa: { ...tsa } });
}

/**
 * Runs on the worker thread.
 * @public (called by name, so the dead-export check keeps it)
 */
export async function renewTask(task: { path: string; tsa: TsaConfig }): Promise<RenewResult> {
  const { renewArchive } = await import('./renew.ts');
  return renewArchive(task.path, task.tsa);
}
