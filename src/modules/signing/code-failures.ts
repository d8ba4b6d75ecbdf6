import type { Executor } from '../../db/database.ts';
import { AppError } from '../../http/errors.ts';

/*
 * Wrong one-time codes over the life of a signer's links, whatever the method (email now, SMS
 * later), and, for a public form, per campaign and address (so no visitor can lock the form for
 * others): at most MAX_CODE_FAILURES, then every link of the signer answers 403 `link_locked`
 * until the sender issues a new link. The per-code limits (otp-window.ts) slow guessing down; this
 * one ends it: 25 tries at a 6-digit code succeed once in 40,000 links.
 */

export const MAX_CODE_FAILURES = 25;

export const signerSubject = (signerId: string) => `signer:${signerId}`;
export const campaignSubject = (campaignId: string, email: string) =>
  `campaign:${campaignId}:${email.trim().toLowerCase()}`;

export const linkLocked = (message: string) => new AppError('link_locked', message);

/** Whether the subject has used up its wrong tries (`max`: access codes allow fewer, access-codes.ts). */
export async function isLocked(
  db: Executor,
  subject: string,
  max = MAX_CODE_FAILURES,
): Promise<boolean> {
  const row = await db
    .selectFrom('code_failures')
    .select('failures')
    .where('subject', '=', subject)
    .executeTakeFirst();
  return (row?.failures ?? 0) >= max;
}

/**
 * Takes one try before the code is compared, in one statement, so tries made at once can never
 * pass the limit together: returns the tries now used, or null when none is left. A right code
 * gives its try back (`refundTry`).
 */
export async function takeTry(
  db: Executor,
  subject: string,
  now: string,
  max = MAX_CODE_FAILURES,
): Promise<number | null> {
  const row = await db
    .insertInto('code_failures')
    .values({ subject, failures: 1, updated_at: now })
    .onConflict((oc) =>
      oc
        .column('subject')
        .doUpdateSet((eb) => ({
          failures: eb('code_failures.failures', '+', 1),
          updated_at: now,
        }))
        .where('code_failures.failures', '<', max),
    )
    .returning('failures')
    .executeTakeFirst();
  return row ? row.failures : null;
}

export async function refundTry(db: Executor, subject: string): Promise<void> {
  await db
    .updateTable('code_failures')
    .set((eb) => ({ failures: eb('failures', '-', 1) }))
    .where('subject', '=', subject)
    .where('failures', '>', 0)
    .execute();
}

/** Forgets the subject's wrong tries (the sender issued a new link). */
export async function clearTries(db: Executor, subject: string): Promise<void> {
  await db.deleteFrom('code_failures').where('subject', '=', subject).execute();
}
