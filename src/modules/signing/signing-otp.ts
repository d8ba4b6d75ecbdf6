import { createHmac, timingSafeEqual } from 'node:crypto';
import { orgMailOf } from '../orgs/org-name.ts';
import type { AppDeps } from '../../deps.ts';
import type { DocumentRow, SignerRow } from '../../db/database.ts';
import { AppError, invalidState } from '../../http/errors.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { otpMail } from '../../mail/templates.ts';
import { writeAudit } from '../audit/audit.ts';
import type { RequestMeta } from '../../http/request-meta.ts';
import { listSigners } from '../documents-core/signers.repository.ts';
import * as repo from './signing.repository.ts';
import { invalidLink, resolveToken } from './signing-links.ts';
import {
  linkLocked,
  MAX_CODE_FAILURES,
  refundTry,
  signerSubject,
  takeTry,
} from './code-failures.ts';
import { maskEmail, requireOpen, requireTurn } from '../documents-core/signing-rules.ts';
import type { OtpResultT } from './signing.schemas.ts';
import {
  newOtpCode,
  nextOtpSend,
  OTP_MAX_ATTEMPTS,
  OTP_TTL_MS,
  resendAfter,
} from './otp-window.ts';
import { lockDocument } from '../documents-core/document-lock.ts';
import { e164, maskPhone, otpMethodOf } from '../documents-core/signer-phone.ts';
import { newId } from '../../ids.ts';
import { smsCodeText } from '../../sms/sms-texts.ts';

/*
 * One-time codes by email or SMS (`otpMethod`), with the rules of otp-window.ts: 5 tries per code
 * (right or wrong; then a new code is needed); a new code voids the previous one. Over the life of
 * the signer's links at most 25 wrong codes (code-failures.ts), then its links are locked.
 */

/** Keyed with the server secret: a leaked table alone does not give away 6-digit codes. */
const codeHash = (deps: Pick<AppDeps, 'secret'>, signerId: string, code: string) =>
  createHmac('sha256', deps.secret).update(`${signerId}:${code}`).digest('hex');

/** Emails or texts (the signer's `otpMethod`, else its document's) a fresh code to the signer whose turn it is. */
export async function sendOtp(
  deps: Pick<AppDeps, 'db' | 'clock' | 'secret'>,
  token: string,
  meta: RequestMeta,
): Promise<OtpResultT> {
  const { signer, doc } = await resolveToken(deps.db, deps, token);
  return deps.db.transaction().execute(async (trx) => {
    const locked = await lockDocument(trx, doc.id);
    const current = await repo.findSignerById(trx, signer.id);
    if (!locked || !current) throw invalidLink();
    requireOpen(locked, current);
    const method = otpMethodOf(locked, current);
    if (method === null) throw invalidState('This signer signs without a one-time code');
    const phone = method === 'sms' ? e164(current.phone) : null;
    if (method === 'sms' && (phone === null || current.sms_failed_at))
      throw invalidState(
        "Codes cannot be texted to this signer's phone; the sender has been asked to correct it",
      );
    requireTurn(locked, await listSigners(trx, doc.id), current);

    const nowMs = deps.clock.now().getTime();
    const previous = await repo.findOtp(trx, current.id);
    const sends = nextOtpSend(previous, nowMs);

    const code = newOtpCode();
    const expiresAt = new Date(nowMs + OTP_TTL_MS).toISOString();
    await repo.saveOtp(trx, {
      signer_id: current.id,
      code_hash: codeHash(deps, current.id, code),
      expires_at: expiresAt,
      attempts: 0,
      ...sends,
    });
    const text = {
      doc: locked,
      signer: current,
      code,
      minutes: OTP_TTL_MS / 60_000,
      orgLocale: (await orgMailOf(trx, locked.org_id)).orgLocale,
    };
    // Sent by a job either way: a slow gateway never holds the request.
    if (phone !== null) {
      await enqueueJob(trx, deps.clock, 'sms', {
        to: phone,
        body: smsCodeText(text),
        idempotencyKey: newId('sms'),
        expiresAt,
        documentId: locked.id,
        signerId: current.id,
      });
    } else await enqueueJob(trx, deps.clock, 'mail', otpMail(text));
    const sentTo = phone !== null ? maskPhone(phone) : maskEmail(current.email);
    await writeAudit(trx, deps.clock, {
      orgId: locked.org_id,
      documentId: locked.id,
      action: 'signer.otp_sent',
      details:
        phone !== null
          ? `Signing code texted to ${current.name} at ${sentTo}`
          : `Signing code emailed to ${current.name} <${sentTo}>`,
      meta,
    });
    return { method, sentTo, expiresAt, resendAfter: resendAfter(nowMs) };
  });
}

/**
 * Checks the code a signer sent with `complete`; throws 401 `otp_required`, 403 `invalid_otp`, or
 * 403 `link_locked` once the signer has tried MAX_CODE_FAILURES wrong codes (the signer's links
 * are then locked until the sender issues a new one). A wrong code is audited and counted in its
 * own statements, so the counts survive the refusal. The caller deletes the code in the
 * transaction that completes the signing (a code works once).
 */
export async function verifyOtp(
  deps: Pick<AppDeps, 'db' | 'clock' | 'secret'>,
  doc: DocumentRow,
  signer: SignerRow,
  code: string | undefined,
  meta: RequestMeta,
): Promise<void> {
  if (!code) {
    throw new AppError(
      'otp_required',
      'Signing needs a one-time code: request it with POST /api/v1/signing/{token}/otp and send it as `otp`',
    );
  }
  const now = deps.clock.now().toISOString();
  const taken = await repo.takeOtpAttempt(deps.db, signer.id, now, OTP_MAX_ATTEMPTS);
  if (!taken) {
    const row = await repo.findOtp(deps.db, signer.id);
    if (!row)
      throw new AppError(
        'otp_required',
        'No code was requested yet: request one with POST /api/v1/signing/{token}/otp',
      );
    if (row.expires_at <= now)
      throw new AppError('invalid_otp', 'The code has expired; request a new one');
    throw new AppError('invalid_otp', 'Too many wrong codes; request a new one');
  }
  const subject = signerSubject(signer.id);
  const used = await takeTry(deps.db, subject, now);
  if (used === null) throw lockedLink();
  const expected = Buffer.from(taken.code_hash, 'hex');
  const actual = Buffer.from(codeHash(deps, signer.id, code), 'hex');
  if (expected.length === actual.length && timingSafeEqual(expected, actual)) {
    await refundTry(deps.db, subject);
    return;
  }
  await writeAudit(deps.db, deps.clock, {
    orgId: doc.org_id,
    documentId: doc.id,
    action: 'signer.otp_failed',
    details: `Wrong signing code from ${signer.name} (attempt ${taken.attempts} of ${OTP_MAX_ATTEMPTS} on this code, ${used} of ${MAX_CODE_FAILURES} on the signer's links)`,
    meta,
  });
  if (used >= MAX_CODE_FAILURES) throw lockedLink();
  const left = Math.min(OTP_MAX_ATTEMPTS - taken.attempts, MAX_CODE_FAILURES - used);
  throw new AppError(
    'invalid_otp',
    left > 0
      ? `The code is wrong; ${left} attempt(s) left`
      : 'The code is wrong and no attempts are left; request a new code',
    [{ path: 'body.otp', message: 'is wrong', attemptsLeft: left }],
  );
}

const lockedLink = () =>
  linkLocked(
    `Too many wrong codes (${MAX_CODE_FAILURES}): this signing link is locked; ask the sender for a new link`,
  );
