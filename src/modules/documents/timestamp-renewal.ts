import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppDeps } from '../../deps.ts';
import { renewInWorker } from '../../pdf/renew-worker.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../audit/audit.ts';

/*
 * Archive renewal (PAdES B-LTA): before the certificate of a document's newest timestamp
 * expires (TIMESTAMP_RENEW_DAYS ahead), a fresh document timestamp is added over the signed
 * file, with the validation data of the previous one, so the file stays verifiable for as
 * long as this keeps running. Several instances may run it: each document is claimed by a
 * conditional UPDATE first, and the new file is recorded only over the file it was made from.
 * The scheduler (src/jobs/schedulers.ts) runs a pass every hour.
 */

const BATCH = 20;
/** How long a claim holds a document; a failed renewal is tried again after it lapses. */
const CLAIM_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 3600 * 1000;
/**
 * When even the new timestamp's certificate expires within TIMESTAMP_RENEW_DAYS (a TSA whose
 * certificates live shorter than the window), renewing again at once gains nothing: wait this long.
 */
const SHORT_LIVED_PAUSE_MS = 7 * DAY_MS;

/** Renews the archive timestamps due within TIMESTAMP_RENEW_DAYS, up to a batch per pass; the failed ones are tried again an hour later. */
export async function renewArchiveTimestamps(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock' | 'pdf'>,
): Promise<{ renewed: number; failed: Array<{ documentId: string; error: string }> }> {
  const tsa = deps.config.longTerm.tsa;
  if (!tsa) return { renewed: 0, failed: [] };
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const horizon = new Date(now.getTime() + deps.config.timestampRenewDays * DAY_MS).toISOString();
  const due = await deps.db
    .selectFrom('documents')
    .select(['id', 'org_id', 'signed_file_key', 'timestamp_expires_at'])
    .where('pades_level', '=', 'B-LTA')
    .where('status', '=', 'completed')
    .where('deleted_at', 'is', null)
    .where('signed_file_key', 'is not', null)
    .where('timestamp_expires_at', '<', horizon)
    .where((eb) =>
      eb.or([
        eb('timestamp_renewal_claimed_until', 'is', null),
        eb('timestamp_renewal_claimed_until', '<', nowIso),
      ]),
    )
    .orderBy('timestamp_expires_at')
    .limit(BATCH)
    .execute();
  let renewed = 0;
  const failed: Array<{ documentId: string; error: string }> = [];
  for (const doc of due) {
    const claimedUntil = new Date(now.getTime() + CLAIM_MS).toISOString();
    const claim = await deps.db
      .updateTable('documents')
      .set({ timestamp_renewal_claimed_until: claimedUntil })
      .where('id', '=', doc.id)
      .where('signed_file_key', '=', doc.signed_file_key!)
      .where((eb) =>
        eb.or([
          eb('timestamp_renewal_claimed_until', 'is', null),
          eb('timestamp_renewal_claimed_until', '<', nowIso),
        ]),
      )
      .executeTakeFirst();
    if (Number(claim.numUpdatedRows) !== 1) continue; // another instance has it
    try {
      await renewOne(
        deps,
        doc.id,
        doc.org_id,
        doc.signed_file_key!,
        doc.timestamp_expires_at,
        tsa,
        horizon,
      );
      renewed++;
    } catch (err) {
      // The claim stays until it lapses: the next attempt comes an hour later.
      failed.push({ documentId: doc.id, error: (err as Error).message });
    }
  }
  return { renewed, failed };
}

async function renewOne(
  deps: Pick<AppDeps, 'db' | 'storage' | 'clock' | 'pdf'>,
  id: string,
  orgId: string,
  oldKey: string,
  oldExpiry: string | null,
  tsa: NonNullable<AppDeps['config']['longTerm']['tsa']>,
  horizon: string,
): Promise<void> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'signet-renew-'));
  try {
    const file = path.join(dir, 'signed.pdf');
    await pipeline(await deps.storage.get(oldKey), fs.createWriteStream(file, { mode: 0o600 }));
    const result = await renewInWorker(deps.pdf, file, tsa);
    const key = `documents/${id}/signed-${result.sha256}.pdf`;
    await deps.storage.put(key, fs.createReadStream(file), 'application/pdf');
    const now = deps.clock.now();
    const stillDue = !result.timestampExpiresAt || result.timestampExpiresAt < horizon;
    const recorded = await deps.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('documents')
        .set({
          signed_file_key: key,
          signed_file_hash: result.sha256,
          timestamp_expires_at: result.timestampExpiresAt,
          timestamp_renewal_claimed_until: stillDue
            ? new Date(now.getTime() + SHORT_LIVED_PAUSE_MS).toISOString()
            : null,
          updated_at: now.toISOString(),
        })
        .where('id', '=', id)
        .where('signed_file_key', '=', oldKey)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      await writeAudit(trx, deps.clock, {
        orgId,
        documentId: id,
        action: 'document.timestamp_renewed',
        details: `Archive timestamp renewed (the previous one's certificate expires ${oldExpiry ?? 'unknown'}; the new one's ${result.timestampExpiresAt ?? 'unknown'}); signed PDF SHA-256 ${result.sha256} (${result.size} bytes)${stillDue ? "; the authority's certificate expires within TIMESTAMP_RENEW_DAYS, next renewal in 7 days" : ''}`,
        meta: UNKNOWN_ACTOR,
      });
      return true;
    });
    // The old file is a prefix of the new one (an incremental update): nothing is lost with it.
    await deps.storage.delete(recorded ? oldKey : key);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
