import type { AppDeps } from '../deps.ts';
import type { JobRunner } from './job-runner.ts';
import { finalizeDocument } from '../modules/documents/finalize.service.ts';
import { isPermanentSealingError, onSealingFailed } from '../modules/documents/sealing.service.ts';
import { PermanentJobError } from '../queue/queue.ts';

/** Job `finalize`: seals a fully signed document, retried on SEALING_RETRY_SCHEDULE; giving up hands it to the sender. */
export function registerFinalizeJob(jobs: JobRunner, deps: AppDeps): void {
  const sealingSchedule = deps.config.sealingRetrySchedule;
  jobs.register(
    'finalize',
    async ({ documentId }, job) => {
      try {
        await finalizeDocument(deps, documentId);
      } catch (err) {
        const permanent = isPermanentSealingError(err);
        const final = permanent || job.attempts > sealingSchedule.length;
        deps.metrics.sealingFailures.inc({ outcome: final ? 'gave_up' : 'retrying' });
        if (permanent)
          throw new PermanentJobError(err instanceof Error ? err.message : String(err));
        throw err;
      }
    },
    async ({ documentId }, error) => onSealingFailed(deps, documentId, error),
    { retrySchedule: sealingSchedule },
  );
}
