import type { AppDeps } from '../deps.ts';
import type { JobRunner } from './job-runner.ts';
import { registerBulkSendJobs } from './bulk-send-job.ts';
import { registerExportJob } from './export-job.ts';
import { registerFinalizeJob } from './finalize-job.ts';
import { registerMailJob } from './mail-job.ts';
import { registerSmsJob } from './sms-job.ts';

/** Connects each job kind to the module use case that performs it (one thin file per kind). */
export function registerJobHandlers(jobs: JobRunner, deps: AppDeps): void {
  registerMailJob(jobs, deps);
  registerSmsJob(jobs, deps);
  registerFinalizeJob(jobs, deps);
  registerBulkSendJobs(jobs, deps);
  registerExportJob(jobs, deps);
}
