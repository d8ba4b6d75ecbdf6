import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { AppError } from '../../http/errors.ts';

/*
 * Signer phones and the way a signer proves it holds the link (`otpMethod`): a number written in
 * international form (`+` and a country code) is checked against libphonenumber's full metadata
 * and kept in E.164 (`+14155550123`); codes by SMS need such a number.
 */

type OtpMethodName = 'email' | 'sms';

/** The signer's own `otpMethod`, else its document's; null when no code is asked. */
export function otpMethodOf(
  doc: { otp_method: string | null },
  signer: { otp_method?: string | null },
): OtpMethodName | null {
  return (signer.otp_method ?? doc.otp_method ?? null) as OtpMethodName | null;
}

/** `+14155550123` for a valid international number, else null. */
export function e164(phone: string | null | undefined): string | null {
  if (!phone?.trim().startsWith('+')) return null;
  const parsed = parsePhoneNumberFromString(phone.trim());
  return parsed?.isValid() ? parsed.number : null;
}

/** The phone as stored: E.164 when it is a valid international number, else as given. */
export function storedPhone(phone: string | null | undefined): string | null {
  if (phone === undefined || phone === null) return null;
  return e164(phone) ?? phone;
}

/**
 * 400 `validation_error` when codes go by SMS and the signer has no valid international number.
 * `path` names the input that should carry it (`body.phone`, `body.signers.2.phone`).
 */
export function requireSmsPhone(
  method: OtpMethodName | null,
  phone: string | null | undefined,
  path: string,
): void {
  if (method !== 'sms' || e164(phone) !== null) return;
  throw new AppError(
    'validation_error',
    phone
      ? 'Codes by SMS need a valid phone number in international form (E.164, e.g. +14155550123)'
      : 'Codes by SMS (otpMethod "sms") need the signer’s phone',
    [
      {
        path,
        message: phone ? 'is not a valid E.164 phone number' : 'is required when otpMethod is sms',
      },
    ],
  );
}

/** `+1 ••• ••• 0123`: the country code and the last four digits, enough to recognise one's own phone. */
export function maskPhone(phone: string): string {
  const parsed = e164(phone) ? parsePhoneNumberFromString(phone.trim()) : undefined;
  const digits = phone.replace(/\D/g, '');
  const last = digits.slice(-4);
  if (!parsed) return `••• ${last}`;
  return `+${parsed.countryCallingCode} ••• ••• ${last}`;
}
