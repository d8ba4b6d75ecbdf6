import type { AppDeps } from '../deps.ts';
import type { JobRunner } from './job-runner.ts';
import { failExport, runExport } from '../modules/exports/export-zip.ts';

/** Job `organization_export`: writes an export's ZIP; after its last attempt the export is `failed`. */
export function registerExportJob(jobs: JobRunner, deps: AppDeps): void {
  jobs.register(
    'organization_export',
    async ({ exportId }) => runExport(deps, exportId),
    async ({ exportId }) => failExport(deps, exportId),
    { retrySchedule: [60_000, 300_000, 1_800_000] },
  );
}
