import type { ExportStatus, Executor, OrganizationExportRow } from '../../db/database.ts';

/*
 * The export's state machine, the only code that writes `organization_exports.status`:
 *   queued ──job starts──▶ processing ──ZIP stored──▶ completed ──24 h──▶ expired
 *   queued | processing ──fails for good──▶ failed
 * Each transition is a conditional update: a job run again after a crash, or two instances,
 * cannot both make it.
 */

export const IN_PROGRESS: readonly ExportStatus[] = ['queued', 'processing'];

/** The job has begun (again, after a crash): `total` documents to write. */
export async function startProcessing(
  trx: Executor,
  id: string,
  total: number,
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('organization_exports')
    .set({ status: 'processing', total_documents: total, processed_documents: 0, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', [...IN_PROGRESS])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The ZIP is stored: completed, downloadable until `expiresAt`; the row as it is now, or null if it was not processing. */
export async function complete(
  trx: Executor,
  id: string,
  file: { key: string; size: number },
  now: string,
  expiresAt: string,
): Promise<OrganizationExportRow | null> {
  return (
    (await trx
      .updateTable('organization_exports')
      .set({
        status: 'completed',
        file_key: file.key,
        file_size: file.size,
        completed_at: now,
        expires_at: expiresAt,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .returningAll()
      .executeTakeFirst()) ?? null
  );
}

export async function fail(trx: Executor, id: string, error: string, now: string): Promise<void> {
  await trx
    .updateTable('organization_exports')
    .set({ status: 'failed', error, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', [...IN_PROGRESS])
    .execute();
}

/** The download window passed (its ZIP is deleted by the caller first). */
export async function expire(trx: Executor, id: string, now: string): Promise<void> {
  await trx
    .updateTable('organization_exports')
    .set({ status: 'expired', file_key: null, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'completed')
    .execute();
}
