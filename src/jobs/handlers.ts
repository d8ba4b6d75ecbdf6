import type { AppDeps } from '../deps.ts';
import { registerBulkSendJobs } from './bulk-send-job.ts';
import { registerExportJob } from './export-job.ts';
import { registerFinalizeJob } from './finalize-job.ts';
import { registerMailJob } from './mail-job.ts';

/** Connects each job kind to the module use case that performs it (one thin file per kind). */
export function registerJobHandlers(deps: AppDeps): void {
  registerMailJob(deps);
  registerFinalizeJob(deps);
  registerBulkSendJobs(deps);
  registerExportJob(deps);
}
