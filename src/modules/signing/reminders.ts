import type { AppDeps } from '../../deps.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { reminderMail } from '../../mail/templates.ts';
import { UNKNOWN_ACTOR, writeAudit } from '../audit/audit.ts';
import { isOpenDocument, OPEN_DOCUMENT_STATUSES } from '../documents-core/document-status.ts';
import { INVITED_SIGNER_STATUSES } from '../documents-core/signer-status.ts';
import { issueLink } from './signing-links.ts';
import { orgMailOf } from '../orgs/org-name.ts';

/*
 * Reminders to signers whose turn it is (the scheduler's pass, src/jobs/schedulers.ts). Whoever
 * moves a signer's `last_notified_at` first sends the reminder, so several instances never send
 * the same one twice.
 */

const BATCH = 100;
const DAY = 24 * 3600 * 1000;
const REMINDER_INTERVAL_MS: Record<string, number> = {
  daily: DAY,
  every_3_days: 3 * DAY,
  weekly: 7 * DAY,
};

/**
 * `reminderFrequency`: a signer whose turn it is (`sent` or `viewed`) and who was last emailed a
 * full period ago gets a reminder with a fresh link (links are stored hashed, so the original
 * cannot be re-sent). The period counts from the invitation, "your turn" mail or last reminder.
 */
export async function sendReminders(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
): Promise<number> {
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
    // Embedded signers get no mail: the sender's own site shows them their link.
    .where((eb) =>
      eb.or([eb('signers.delivery', 'is', null), eb('signers.delivery', '!=', 'embedded')]),
    )
    // Identity evidence under review: the sender, not the signer, has to act.
    .where((eb) =>
      eb.or([
        eb('signers.verification_status', 'is', null),
        eb('signers.verification_status', '!=', 'pending'),
      ]),
    )
    .where((eb) =>
      eb.or([
        eb('signers.last_notified_at', 'is', null),
        eb('signers.last_notified_at', '<=', new Date(now.getTime() - DAY).toISOString()),
      ]),
    )
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
      let claim = trx
        .updateTable('signers')
        .set({ last_notified_at: nowIso })
        .where('id', '=', candidate.id)
        .where('status', 'in', INVITED_SIGNER_STATUSES);
      claim =
        candidate.last_notified_at === null || candidate.last_notified_at === undefined
          ? claim.where('last_notified_at', 'is', null)
          : claim.where('last_notified_at', '=', candidate.last_notified_at);
      if (Number((await claim.executeTakeFirst()).numUpdatedRows) !== 1) return false;
      const doc = await trx
        .selectFrom('documents')
        .selectAll()
        .where('id', '=', candidate.document_id)
        .executeTakeFirstOrThrow();
      if (!isOpenDocument(doc.status)) return false;
      const { url } = await issueLink(trx, deps, doc, candidate);
      const org = await orgMailOf(trx, doc.org_id);
      await enqueueJob(trx, deps.clock, 'mail', {
        ...reminderMail({ doc, signer: candidate, ...org, link: url }),
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
