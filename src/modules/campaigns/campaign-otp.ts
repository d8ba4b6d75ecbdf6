import { createHmac, timingSafeEqual } from 'node:crypto';
import { type LocaleCode, matchAcceptLanguage, resolveLocale } from '../../i18n/locales.ts';
import { translator } from '../../i18n/messages.ts';
import { orgMailOf } from '../orgs/org-name.ts';
import type { AppDeps } from '../../deps.ts';
import type { CampaignRow, Executor } from '../../db/database.ts';
import { AppError } from '../../http/errors.ts';
import { HOUR } from '../../http/counters.ts';
import { retryOnConflict } from '../../db/conflicts.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { composeMail, type OutgoingMail } from '../../mail/templates.ts';
import {
  newOtpCode,
  nextOtpSend,
  OTP_MAX_ATTEMPTS,
  OTP_TTL_MS,
  resendAfter,
} from '../signing/otp-window.ts';
import { maskEmail } from '../documents-core/signing-rules.ts';
import {
  campaignSubject,
  isLocked,
  linkLocked,
  MAX_CODE_FAILURES,
  refundTry,
  takeTry,
} from '../signing/code-failures.ts';

const lockedAddress = () =>
  linkLocked(
    `Too many wrong codes (${MAX_CODE_FAILURES}) were tried for this email address on this form; it can no longer sign it here. Contact the organization behind the form.`,
  );
import type { OtpResultT } from '../signing/signing.schemas.ts';

/*
 * Emailed codes for campaigns with `requireOtp`: the visitor proves they read the address they
 * submit. The rules are the signing codes' (src/modules/signing/otp-window.ts): 6 digits, valid
 * 10 minutes, 5 tries per code, one send per minute and 5 per hour per address and campaign. A
 * code is bound to the campaign and the address and works once. At most 25 wrong codes per
 * campaign and address, ever (code-failures.ts): then that address can no longer sign this form
 * (403 `link_locked`), while the form stays open to everyone else.
 */

const normalize = (email: string) => email.trim().toLowerCase();

/** Keyed with the server secret, so a leaked table does not give the codes away. */
const codeHash = (deps: Pick<AppDeps, 'secret'>, campaignId: string, email: string, code: string) =>
  createHmac('sha256', deps.secret).update(`campaign:${campaignId}:${email}:${code}`).digest('hex');

/** A visitor's code mail, in the campaign's locale, else the visitor's browser's, else the organization's. */
function otpMailFor(
  campaign: CampaignRow,
  to: string,
  code: string,
  locale: LocaleCode,
): OutgoingMail {
  const minutes = OTP_TTL_MS / 60_000;
  const { t } = translator(locale);
  // The code is in the body only: subjects end up in mail servers' logs and lock-screen previews.
  return composeMail(campaign.org_id, to, t('mail.otpSubject', { documentName: campaign.name }), {
    locale,
    greeting: t('mail.greetingNoName'),
    paragraphs: [t('mail.otpBody', { documentName: campaign.name, code, minutes })],
    code,
    after: [t('mail.otpIgnoreVisitor')],
  });
}

/** Emails a fresh code to `email` for this campaign (a new code voids the previous one). */
export async function sendCampaignOtp(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock' | 'secret' | 'counters'>,
  campaign: CampaignRow,
  rawEmail: string,
  acceptLanguage?: string,
): Promise<OtpResultT> {
  const email = normalize(rawEmail);
  // No code is mailed to an address that can no longer use one here.
  if (await isLocked(deps.db, campaignSubject(campaign.id, email))) throw lockedAddress();
  // Two requests for the same address at once both find no code and both insert one: the loser retries and is refused as a resend.
  return retryOnConflict(() =>
    deps.db.transaction().execute(async (trx) => {
      const nowMs = deps.clock.now().getTime();
      const previous = await trx
        .selectFrom('campaign_otps')
        .selectAll()
        .where('campaign_id', '=', campaign.id)
        .where('email', '=', email)
        .executeTakeFirst();
      const sends = nextOtpSend(previous, nowMs);
      // Mail to strangers' addresses is bounded per form and per address (across forms), not only per pair.
      const { campaignOtpMailsPerHour, addressOtpMailsPerHour } = deps.config.limits;
      await deps.counters.takeAll(
        [
          {
            key: `otp-mail:address:${email}`,
            max: addressOtpMailsPerHour,
            what: 'codes per hour to one email address',
          },
          {
            key: `otp-mail:campaign:${campaign.id}`,
            max: campaignOtpMailsPerHour,
            what: 'codes per hour from this form',
          },
        ],
        HOUR,
      );
      const code = newOtpCode();
      const expiresAt = new Date(nowMs + OTP_TTL_MS).toISOString();
      // Only the code read above is replaced: a code another request put there meanwhile stays, and
      // the insert below then conflicts with it (retried, and refused as a resend). Deleting whatever
      // is there would let both requests succeed on PostgreSQL, each mailing a code.
      if (previous) {
        await trx
          .deleteFrom('campaign_otps')
          .where('campaign_id', '=', campaign.id)
          .where('email', '=', email)
          .where('code_hash', '=', previous.code_hash)
          .execute();
      }
      await trx
        .insertInto('campaign_otps')
        .values({
          campaign_id: campaign.id,
          email,
          code_hash: codeHash(deps, campaign.id, email, code),
          expires_at: expiresAt,
          attempts: 0,
          ...sends,
        })
        .execute();
      const { orgLocale } = await orgMailOf(trx, campaign.org_id);
      const locale = resolveLocale(campaign.locale, matchAcceptLanguage(acceptLanguage), orgLocale);
      await enqueueJob(trx, deps.clock, 'mail', otpMailFor(campaign, email, code, locale));
      return {
        method: 'email',
        sentTo: maskEmail(email),
        expiresAt,
        resendAfter: resendAfter(nowMs),
      };
    }),
  );
}

/**
 * Checks the code a visitor submits; throws 401 `otp_required`, 403 `invalid_otp`, or 403
 * `link_locked` past the wrong codes this address may try on this form. The attempt
 * is counted in its own statement before comparing, so parallel guesses cannot exceed the limit
 * and a wrong guess counts even though the request fails. `consumeCampaignOtp` spends the code.
 */
export async function verifyCampaignOtp(
  deps: Pick<AppDeps, 'db' | 'clock' | 'secret'>,
  campaign: CampaignRow,
  rawEmail: string,
  code: string | undefined,
): Promise<void> {
  const email = normalize(rawEmail);
  const request = `request one with POST /api/v1/public/campaigns/${campaign.slug}/otp`;
  if (!code)
    throw new AppError(
      'otp_required',
      `This campaign confirms your email address with a code: ${request} and send it as \`otp\``,
    );
  const now = deps.clock.now().toISOString();
  const taken = await deps.db
    .updateTable('campaign_otps')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('campaign_id', '=', campaign.id)
    .where('email', '=', email)
    .where('expires_at', '>', now)
    .where('attempts', '<', OTP_MAX_ATTEMPTS)
    .returning(['code_hash', 'attempts'])
    .executeTakeFirst();
  if (!taken) {
    const row = await deps.db
      .selectFrom('campaign_otps')
      .selectAll()
      .where('campaign_id', '=', campaign.id)
      .where('email', '=', email)
      .executeTakeFirst();
    if (!row)
      throw new AppError('otp_required', `No code was sent to this address yet: ${request}`);
    if (row.expires_at <= now)
      throw new AppError('invalid_otp', 'The code has expired; request a new one');
    throw new AppError('invalid_otp', 'Too many wrong codes; request a new one');
  }
  const subject = campaignSubject(campaign.id, email);
  const used = await takeTry(deps.db, subject, now);
  if (used === null) throw lockedAddress();
  const expected = Buffer.from(taken.code_hash, 'hex');
  const actual = Buffer.from(codeHash(deps, campaign.id, email, code), 'hex');
  if (expected.length === actual.length && timingSafeEqual(expected, actual)) {
    await refundTry(deps.db, subject);
    return;
  }
  if (used >= MAX_CODE_FAILURES) throw lockedAddress();
  const left = Math.min(OTP_MAX_ATTEMPTS - taken.attempts, MAX_CODE_FAILURES - used);
  throw new AppError(
    'invalid_otp',
    left > 0
      ? `The code is wrong; ${left} attempt(s) left`
      : 'The code is wrong and no attempts are left; request a new code',
    [{ path: 'body.otp', message: 'is wrong', attemptsLeft: left }],
  );
}

/** Spends the visitor's code inside the submission's transaction: a code makes one submission. */
export async function consumeCampaignOtp(
  trx: Executor,
  campaignId: string,
  rawEmail: string,
): Promise<boolean> {
  const result = await trx
    .deleteFrom('campaign_otps')
    .where('campaign_id', '=', campaignId)
    .where('email', '=', normalize(rawEmail))
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
