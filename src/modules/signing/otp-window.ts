import { randomInt } from 'node:crypto';
import { AppError } from '../../http/errors.ts';

/*
 * The rules of emailed one-time codes, shared by signing (signing-otp.ts) and campaigns
 * (campaigns/campaign-otp.ts): 6 digits, valid 10 minutes, 5 tries per code, one send per minute
 * and 5 per hour per recipient (429 `rate_limited` with Retry-After), so a page cannot be used to
 * flood a mailbox.
 */

export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_ATTEMPTS = 5;
const OTP_RESEND_MS = 60_000;
const OTP_WINDOW_MS = 3_600_000;
const OTP_WINDOW_SENDS = 5;

function rateLimited(message: string, retryAtMs: number, nowMs: number): AppError {
  const seconds = Math.max(1, Math.ceil((retryAtMs - nowMs) / 1000));
  return new AppError('rate_limited', `${message}; retry in ${seconds} s`, undefined, {
    'Retry-After': String(seconds),
  });
}

/** What a stored code remembers of earlier sends. */
interface OtpSends {
  sent_at: string;
  window_started_at: string;
  window_sends: number;
}

/**
 * The send columns of a new code sent at `nowMs`, given the previous code of the same recipient;
 * throws 429 `rate_limited` when the last send was under a minute ago or the hour's sends are used.
 */
export function nextOtpSend(previous: OtpSends | undefined, nowMs: number): OtpSends {
  let windowStart = nowMs;
  let windowSends = 0;
  if (previous) {
    const lastSent = Date.parse(previous.sent_at);
    if (nowMs - lastSent < OTP_RESEND_MS)
      throw rateLimited('A code was sent less than a minute ago', lastSent + OTP_RESEND_MS, nowMs);
    const started = Date.parse(previous.window_started_at);
    if (nowMs - started < OTP_WINDOW_MS) {
      windowStart = started;
      windowSends = previous.window_sends;
      if (windowSends >= OTP_WINDOW_SENDS)
        throw rateLimited(
          `At most ${OTP_WINDOW_SENDS} codes per hour`,
          started + OTP_WINDOW_MS,
          nowMs,
        );
    }
  }
  return {
    sent_at: new Date(nowMs).toISOString(),
    window_started_at: new Date(windowStart).toISOString(),
    window_sends: windowSends + 1,
  };
}

/** A fresh 6-digit code. */
export const newOtpCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** When the recipient may ask for the next code. */
export const resendAfter = (nowMs: number) => new Date(nowMs + OTP_RESEND_MS).toISOString();
