import type { DocumentRow } from '../../db/database.ts';
import type { AppDeps } from '../../deps.ts';
import { purgeFinishedRows } from '../bulk-sends/bulk-sends.repository.ts';
import { CAMPAIGN_UPLOAD_TTL_MS, purgeUnclaimedUploads } from '../campaigns/campaign-uploads.ts';
import { purgeExpiredExports } from '../exports/exports.service.ts';

/*
 * What Signet keeps, and for how long (docs/operations.md, "Retention"): a deployment does not keep personal
 * data or credentials for ever. Each purge is a set of deletes any instance may run at any time;
 * running it twice, or on two instances at once, deletes nothing more. Events and the webhook
 * delivery log (WEBHOOK_LOG_DAYS) are purged by modules/events/event-retention.ts.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Idempotency records answer retries for 24 hours (README, the walk-through). */
const IDEMPOTENCY_TTL_MS = DAY;
const BATCH = 100;
/**
 * The rows of a finished bulk send (who it went to, their prefill values, why a row failed) are
 * kept this long after it finished, for looking into failed rows, and then deleted: the documents
 * and the bulk send's counters remain.
 */
const BULK_SEND_ROWS_TTL_MS = 7 * DAY;

interface PurgeResult {
  idempotency: number;
  tokens: number;
  deletedDocuments: number;
  bulkSendRows: number;
  campaignUploads: number;
  /** Organization exports whose 24-hour download window ended (their ZIPs deleted). */
  exports: number;
}

const count = (result: { numDeletedRows: bigint }[]) =>
  result.reduce((n, r) => n + Number(r.numDeletedRows), 0);

/** One pass of every purge. */
export async function purgeExpired(
  deps: Pick<AppDeps, 'config' | 'db' | 'storage' | 'clock'>,
): Promise<PurgeResult> {
  const now = deps.clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  const { db } = deps;

  const idempotency = count(
    await db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', iso(now - IDEMPOTENCY_TTL_MS))
      .execute(),
  );

  // Links and codes that can no longer be used (an hour of slack keeps the resend windows).
  const expired = iso(now - HOUR);
  let tokens = count(
    await db.deleteFrom('signing_tokens').where('expires_at', '<', expired).execute(),
  );
  tokens += count(await db.deleteFrom('builder_links').where('expires_at', '<', expired).execute());
  tokens += count(
    await db
      .deleteFrom('signing_otps')
      .where('expires_at', '<', expired)
      .where('window_started_at', '<', expired)
      .execute(),
  );
  tokens += count(
    await db
      .deleteFrom('campaign_otps')
      .where('expires_at', '<', expired)
      .where('window_started_at', '<', expired)
      .execute(),
  );

  const deletedBefore = iso(now - deps.config.deletedRetentionDays * DAY);
  const gone = await db
    .selectFrom('documents')
    .selectAll()
    .where('deleted_at', '<', deletedBefore)
    .orderBy('deleted_at')
    .limit(BATCH)
    .execute();
  let deletedDocuments = 0;
  for (const doc of gone) if (await eraseDocument(deps, doc)) deletedDocuments++;
  const bulkSendRows = await purgeFinishedRows(db, iso(now - BULK_SEND_ROWS_TTL_MS), BATCH);
  const campaignUploads = await purgeUnclaimedUploads(
    deps,
    iso(now - CAMPAIGN_UPLOAD_TTL_MS),
    BATCH,
  );
  const exports = await purgeExpiredExports(deps, iso(now), BATCH);
  return { idempotency, tokens, deletedDocuments, bulkSendRows, campaignUploads, exports };
}

/**
 * A document deleted longer ago than DELETED_RETENTION_DAYS: its files (original, signed,
 * attachments and identity evidence) and then its rows (signers, fields, links, audit trail) are
 * removed. Files go first: a crash in between leaves rows that the next pass erases again.
 */
async function eraseDocument(
  deps: Pick<AppDeps, 'db' | 'storage'>,
  doc: DocumentRow,
): Promise<boolean> {
  const { db, storage } = deps;
  const attachments = await db
    .selectFrom('attachments')
    .select('file_key')
    .where('document_id', '=', doc.id)
    .execute();
  const keys = new Set([
    doc.file_key,
    doc.original_file_key,
    doc.signed_file_key,
    doc.pending_upload_key,
    ...attachments.map((a) => a.file_key),
  ]);
  for (const key of keys) if (key) await storage.delete(key);
  return db.transaction().execute(async (trx) => {
    const signers = trx.selectFrom('signers').select('id').where('document_id', '=', doc.id);
    await trx.deleteFrom('signing_otps').where('signer_id', 'in', signers).execute();
    await trx.deleteFrom('signing_tokens').where('document_id', '=', doc.id).execute();
    await trx.deleteFrom('builder_links').where('document_id', '=', doc.id).execute();
    await trx.deleteFrom('attachments').where('document_id', '=', doc.id).execute();
    await trx.deleteFrom('fields').where('document_id', '=', doc.id).execute();
    await trx.deleteFrom('signers').where('document_id', '=', doc.id).execute();
    await trx.deleteFrom('audit_logs').where('document_id', '=', doc.id).execute();
    const removed = await trx
      .deleteFrom('documents')
      .where('id', '=', doc.id)
      .where('deleted_at', 'is not', null)
      .executeTakeFirst();
    return Number(removed.numDeletedRows) === 1;
  });
}
