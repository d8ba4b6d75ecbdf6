import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { enqueueJob } from './queue.ts';
import { expiredMail, reminderMail } from '../mail/templates.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../modules/audit/audit.ts';
import { emitEvent } from '../modules/events/emit.ts';
import { isOpenDocument, moveDocument, OPEN_DOCUMENT_STATUSES } from '../modules/documents/document-status.ts';
import { INVITED_SIGNER_STATUSES, isFinishedSigner, moveSigner, UNFINISHED_SIGNER_STATUSES } from '../modules/signers/signer-status.ts';
import { documentEventData } from '../modules/documents/documents.service.ts';
import { listSigners } from '../modules/signers/signers.repository.ts';
import { lockDocument } from '../modules/signing/signing.repository.ts';
import { issueLink } from '../modules/signing/signing-links.ts';
import { orgNameOf } from '../modules/signing/signing-flow.ts';
import { openSigners } from '../modules/signing/signing-rules.ts';
import { closeExpiredCampaigns } from '../modules/campaigns/campaign-closing.ts';
import { purgeEventLog } from '../modules/events/event-retention.ts';
import { purgeExpired } from '../modules/retention/retention.ts';
import { renewArchiveTimestamps } from './timestamp-renewal.ts';

/*
 * Time-driven transitions: documents expire, signers get reminders. Every instance with workers
 * runs them; each change is a conditional UPDATE that only one instance can win, and the mails
 * and events are committed with it, so several instances never send the same mail twice.
 */

export const SCHEDULER_INTERVAL_MS = 60_000;
const BATCH = 100;
const DAY = 24 * 3600 * 1000;
export const REMINDER_INTERVAL_MS: Record<string, number> = { daily: DAY, every_3_days: 3 * DAY, weekly: 7 * DAY };

/**
 * `pending`/`action_required` documents whose `expiresAt` has passed become `expired`; recipients
 * who had not finished become `cancelled`, and everyone is told. A document whose signers have all
 * completed is left to the finalize job: its signed PDF is on the way.
 */
export async function expireDocuments(deps: AppDeps): Promise<number> {
  const now = deps.clock.now().toISOString();
  const due = await deps.db
    .selectFrom('documents')
    .select('id')
    .where('status', 'in', OPEN_DOCUMENT_STATUSES)
    .where('expires_at', '<=', now)
    .where('deleted_at', 'is', null)
    .orderBy('expires_at')
    .limit(BATCH)
    .execute();
  let expired = 0;
  for (const { id } of due) {
    const done = await deps.db.transaction().execute(async (trx) => {
      const doc = await lockDocument(trx, id);
      if (!doc || !isOpenDocument(doc.status) || !doc.expires_at || doc.expires_at > now) return false;
      const signers = await listSigners(trx, id);
      if (openSigners(signers).length === 0) return false;
      if (!(await moveDocument(trx, id, OPEN_DOCUMENT_STATUSES, 'expired', { updated_at: now }))) return false;
      const orgName = await orgNameOf(trx, doc.org_id);
      for (const signer of signers) {
        if (!isFinishedSigner(signer.status)) await moveSigner(trx, signer.id, UNFINISHED_SIGNER_STATUSES, 'cancelled', { updated_at: now });
        await enqueueJob(trx, deps.clock, 'mail', expiredMail({ doc, recipient: signer, orgName }));
      }
      await writeAudit(trx, deps.clock, {
        orgId: doc.org_id,
        documentId: id,
        action: 'document.expired',
        details: `Expired at ${doc.expires_at} before everyone signed; ${signers.length} recipient(s) notified`,
        meta: UNKNOWN_ACTOR,
      });
      await emitEvent(trx, deps.clock, doc.org_id, 'document.expired', await documentEventData(trx, doc.org_id, id));
      return true;
    });
    if (done) expired++;
  }
  return expired;
}

/**
 * `reminderFrequency`: a signer whose turn it is (`sent` or `viewed`) and who was last emailed a
 * full period ago gets a reminder with a fresh link (links are stored hashed, so the original
 * cannot be re-sent). The period counts from the invitation, "your turn" mail or last reminder.
 */
export async function sendReminders(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const candidates = await deps.db
    .selectFrom('signers')
    .innerJoin('documents', 'documents.id', 'signers.document_id')
    .selectAll('signers')
    .select(['documents.reminder_frequency', 'documents.sent_at as document_sent_at'])
    .where('documents.status', 'in', OPEN_DOCUMENT_STATUSES)
    .where('documents.deleted_at', 'is', null)
    .where('documents.reminder_frequency', 'is not', null)
    .where('signers.status', 'in', INVITED_SIGNER_STATUSES)
    .where('signers.role', '!=', 'cc')
    .where('signers.delivery_failed_at', 'is', null)
    // Identity evidence under review: the sender, not the signer, has to act.
    .where((eb) => eb.or([eb('signers.verification_status', 'is', null), eb('signers.verification_status', '!=', 'pending')]))
    .where((eb) => eb.or([eb('signers.last_notified_at', 'is', null), eb('signers.last_notified_at', '<=', new Date(now.getTime() - DAY).toISOString())]))
    .orderBy('signers.last_notified_at')
    .limit(BATCH)
    .execute();
  let reminded = 0;
  for (const candidate of candidates) {
    const last = candidate.last_notified_at ?? candidate.document_sent_at ?? candidate.created_at;
    const period = REMINDER_INTERVAL_MS[candidate.reminder_frequency ?? ''];
    if (!period || Date.parse(last) + period > now.getTime()) continue;
    const done = await deps.db.transaction().execute(async (trx) => {
      // Whoever moves last_notified_at first sends the reminder; everyone else sees no row change.
      let claim = trx.updateTable('signers').set({ last_notified_at: nowIso }).where('id', '=', candidate.id).where('status', 'in', INVITED_SIGNER_STATUSES);
      claim = candidate.last_notified_at === null || candidate.last_notified_at === undefined
        ? claim.where('last_notified_at', 'is', null)
        : claim.where('last_notified_at', '=', candidate.last_notified_at);
      if (Number((await claim.executeTakeFirst()).numUpdatedRows) !== 1) return false;
      const doc = await trx.selectFrom('documents').selectAll().where('id', '=', candidate.document_id).executeTakeFirstOrThrow();
      if (!isOpenDocument(doc.status)) return false;
      const { url } = await issueLink(trx, deps, doc, candidate);
      const orgName = await orgNameOf(trx, doc.org_id);
      await enqueueJob(trx, deps.clock, 'mail', {
        ...reminderMail({ doc, signer: candidate, orgName, link: url }),
        signingInvitation: { documentId: doc.id, signerId: candidate.id },
      });
      await writeAudit(trx, deps.clock, {
        orgId: doc.org_id,
        documentId: doc.id,
        action: 'signer.reminded',
        details: `Reminder (${candidate.reminder_frequency}) emailed to ${candidate.name} <${candidate.email}>`,
        meta: UNKNOWN_ACTOR,
      });
      return true;
    });
    if (done) reminded++;
  }
  return reminded;
}

/** One pass of every scheduler (the loop below, tests, the CLI). */
export async function runSchedulers(deps: AppDeps): Promise<{ expired: number; reminded: number; campaignsClosed: number; eventsPurged: number }> {
  const expired = await expireDocuments(deps);
  const reminded = await sendReminders(deps);
  const campaignsClosed = await closeExpiredCampaigns(deps);
  const eventsPurged = await purgeEventLog(deps.db, deps.clock.now(), deps.config.webhookLogDays);
  return { expired, reminded, campaignsClosed, eventsPurged };
}

/** The retention purges (modules/retention) and archive timestamp renewal run at most this often. */
export const PURGE_INTERVAL_MS = 3_600_000;

/**
 * Runs the schedulers every minute, and the retention purges every hour, until the returned stop
 * function is called (it waits for a pass in progress).
 */
export function startSchedulers(deps: AppDeps, log: FastifyBaseLogger, intervalMs = SCHEDULER_INTERVAL_MS): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let lastPurge = 0;
  const tick = () => {
    running = runSchedulers(deps)
      .then(async (result) => {
        if (result.expired || result.reminded || result.campaignsClosed || result.eventsPurged) log.info(result, 'schedulers ran');
        if (Date.now() - lastPurge < PURGE_INTERVAL_MS) return;
        lastPurge = Date.now();
        const purged = await purgeExpired(deps);
        if (Object.values(purged).some((n) => n > 0)) log.info(purged, 'retention purge ran');
        const renewal = await renewArchiveTimestamps(deps);
        if (renewal.renewed > 0) log.info({ renewed: renewal.renewed }, 'archive timestamps renewed');
        for (const f of renewal.failed) log.warn(f, 'archive timestamp renewal failed; tried again in an hour');
      })
      .catch((err) => log.error({ err }, 'scheduler pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 1000);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
