import type { AppDeps } from '../deps.ts';
import type { JobRunner } from './job-runner.ts';
import { cancelBulkDocuments, processBulkRows } from '../modules/bulk-sends/bulk-send-rows.ts';

/** Jobs `bulk_send` (a slice of rows, resumable) and `bulk_send_cancel`. */
export function registerBulkSendJobs(jobs: JobRunner, deps: AppDeps): void {
  jobs.register('bulk_send', async ({ bulkSendId, from, to }) =>
    processBulkRows(deps, bulkSendId, from, to),
  );
  jobs.register('bulk_send_cancel', async ({ bulkSendId }) =>
    cancelBulkDocuments(deps, bulkSendId),
  );
}
