import type { OrganizationExportRow } from '../../db/database.ts';
import type { AppDeps } from '../../deps.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { StorageNotFound } from '../../storage/storage.ts';
import { expire } from './export-status.ts';
import { checkExportToken, signExportToken } from './export-token.ts';
import * as repo from './exports.repository.ts';
import { EXPORTS_PER_DAY, type OrganizationExportT } from './exports.schemas.ts';

type LinkDeps = Pick<AppDeps, 'config' | 'secret'>;

/** The export as the API shows it; a completed one carries its download link. */
export function toExport(deps: LinkDeps, row: OrganizationExportRow): OrganizationExportT {
  const link =
    row.status === 'completed' && row.expires_at
      ? `${deps.config.publicUrl}/api/v1/organization/exports/${row.id}/download?token=${signExportToken(deps.secret, row.id, Date.parse(row.expires_at))}`
      : null;
  return {
    id: row.id,
    status: row.status,
    totalDocuments: row.total_documents,
    processedDocuments: row.processed_documents,
    fileSize: row.file_size,
    downloadUrl: link,
    expiresAt: row.status === 'completed' ? row.expires_at : null,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

/**
 * Starts an export of every document of the organization: queued, then written by a job.
 * Bounded: one in progress per organization, EXPORTS_PER_DAY started per 24 hours (409
 * `limit_reached` past either).
 */
export async function startExport(
  deps: Pick<AppDeps, 'config' | 'db' | 'dialect' | 'clock' | 'secret'>,
  orgId: string,
): Promise<OrganizationExportT> {
  const now = deps.clock.now();
  const row = await deps.db.transaction().execute(async (trx) => {
    await repo.lockOrganization(trx, deps.dialect, orgId);
    const recent = await repo.recentExports(
      trx,
      orgId,
      new Date(now.getTime() - 24 * 3_600_000).toISOString(),
    );
    if (recent.inProgress)
      throw new AppError(
        'limit_reached',
        'An export of your organization is already in progress; follow it with GET /api/v1/organization/exports/{id}',
      );
    if (recent.count >= EXPORTS_PER_DAY)
      throw new AppError(
        'limit_reached',
        `An organization starts at most ${EXPORTS_PER_DAY} exports in 24 hours`,
      );
    const iso = now.toISOString();
    const created: OrganizationExportRow = {
      id: newId('exp'),
      org_id: orgId,
      status: 'queued',
      total_documents: await repo.countDocuments(trx, orgId),
      processed_documents: 0,
      file_key: null,
      file_size: null,
      error: null,
      created_at: iso,
      updated_at: iso,
      completed_at: null,
      expires_at: null,
    };
    await repo.insertExport(trx, created);
    await enqueueJob(trx, deps.clock, 'organization_export', { exportId: created.id });
    return created;
  });
  return toExport(deps, row);
}

/** One export of the organization, with its progress. */
export async function getExport(
  deps: Pick<AppDeps, 'config' | 'db' | 'secret'>,
  orgId: string,
  id: string,
): Promise<OrganizationExportT> {
  const row = await repo.findOrgExport(deps.db, orgId, id);
  if (!row) throw notFound('Export');
  return toExport(deps, row);
}

/**
 * The ZIP of a completed export, for its download link (the token authenticates: no API key).
 * A forged token is 403; a genuine one past its time is 403 too, saying when it expired.
 */
export async function openExportDownload(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'secret'>,
  id: string,
  token: string,
) {
  const check = checkExportToken(deps.secret, id, token, deps.clock.now());
  if (check.state === 'forged') throw new AppError('forbidden', 'This download link is not valid');
  if (check.state === 'expired')
    throw new AppError(
      'forbidden',
      `This download link expired at ${new Date(check.expiresMs).toISOString()}; start a new export with POST /api/v1/organization/exports`,
    );
  const row = await repo.findExport(deps.db, id);
  if (row?.status !== 'completed' || !row.file_key) throw notFound('Export');
  try {
    return {
      body: await deps.storage.get(row.file_key),
      size: row.file_size,
      filename: `signet-export-${row.created_at.slice(0, 10)}-${row.id}.zip`,
    };
  } catch (err) {
    if (err instanceof StorageNotFound) throw notFound('Export');
    throw err;
  }
}

/** Deletes the ZIPs whose download window ended (retention purge); how many. */
export async function purgeExpiredExports(
  deps: Pick<AppDeps, 'db' | 'storage'>,
  now: string,
  batch: number,
): Promise<number> {
  const rows = await repo.expiredExports(deps.db, now, batch);
  for (const row of rows) {
    if (row.file_key) await deps.storage.delete(row.file_key);
    await expire(deps.db, row.id, now);
  }
  return rows.length;
}
