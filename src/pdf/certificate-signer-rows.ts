import type { FontKey } from './content.ts';
import type { AuthenticationMethod, FinalizeSigner } from './finalize-input.ts';
import type { ShapedLine } from '../fonts/shaper.ts';
import { translator, type Translator } from '../i18n/messages.ts';

/*
 * The rows the certificate page gives each signer (email, role, time, how it got in, consent,
 * address, browser), in the page's language.
 */

const USER_AGENT_MAX = 160;
/** The longest consent text the page quotes in full; a longer one is named by its SHA-256 only. */
const CONSENT_QUOTE_MAX = 600;

export interface Row {
  label: string;
  font: FontKey;
  size: number;
  lines: ShapedLine[];
}

/**
 * A time as the certificate gives it: in UTC, and first in the organization's time zone when it
 * has another one ("27.11.2026, 15:07 (Europe/Berlin); 2026-11-27 14:07:00 UTC").
 */
export function formatTimestamp(iso: string | null, tr: Translator = translator('en')): string {
  if (!iso) return tr.t('cert.notSigned');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const utc = `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  if (tr.timeZone === 'UTC') return utc;
  return tr.t('cert.timeInZone', {
    local: tr.dateTime(d),
    timeZone: tr.timeZone,
    utc: d.toISOString().slice(0, 19).replace('T', ' '),
  });
}

const ROLE_KEYS: Record<string, string> = {
  signer: 'cert.roleSigner',
  approver: 'cert.roleApprover',
  cc: 'cert.roleCc',
};

export function signerRows(
  signer: FinalizeSigner,
  row: (label: string, value: string, font?: FontKey, size?: number) => Row,
  tr: Translator,
): Row[] {
  const { t } = tr;
  const location = [signer.geoCity, signer.geoCountry].filter(Boolean).join(', ');
  const agent =
    signer.userAgent.length > USER_AGENT_MAX
      ? `${signer.userAgent.slice(0, USER_AGENT_MAX - 3)}...`
      : signer.userAgent;
  return [
    row(t('cert.email'), signer.email),
    row(t('cert.role'), ROLE_KEYS[signer.role] ? t(ROLE_KEYS[signer.role]!) : signer.role),
    row(t('cert.signedAt'), formatTimestamp(signer.signedAt, tr)),
    ...(signer.authentication?.length
      ? [row(t('cert.authentication'), authenticationText(signer, tr))]
      : []),
    ...consentRows(signer, row, tr),
    row(t('cert.ipAddress'), signer.ipAddress || t('cert.unknown')),
    row(t('cert.location'), location || t('cert.unknown')),
    row(t('cert.userAgent'), agent || t('cert.unknown'), 'sans', 8),
  ];
}

/** The signer's consent: when, the text's locale and SHA-256, and the text itself when short. */
function consentRows(
  signer: FinalizeSigner,
  row: (label: string, value: string, font?: FontKey, size?: number) => Row,
  tr: Translator,
): Row[] {
  const { consent } = signer;
  if (!consent) return [];
  const rows = [
    row(
      tr.t('cert.consent'),
      tr.t('cert.consentValue', {
        time: formatTimestamp(consent.at, tr),
        locale: consent.locale,
        sha256: consent.sha256,
      }),
      'sans',
      8,
    ),
  ];
  const text = consent.text.replace(/\s+/g, ' ').trim();
  if (text && text.length <= CONSENT_QUOTE_MAX)
    rows.push(row(tr.t('cert.consentText'), text, 'sans', 8));
  return rows;
}

const AUTHENTICATION_KEYS: Record<AuthenticationMethod, string> = {
  email_link: 'cert.authEmailLink',
  access_code: 'cert.authAccessCode',
  email_otp: 'cert.authEmailOtp',
  // Says what an SMS code proves: that someone held that phone, not who the person is.
  sms_otp: 'cert.authSmsOtp',
};

/** "Signing link sent by email and access code given by the sender", in the page's locale. */
function authenticationText(signer: FinalizeSigner, tr: Translator): string {
  const phone = signer.otpPhone ?? tr.t('cert.unknown');
  const text = new Intl.ListFormat(tr.locale, { type: 'conjunction' }).format(
    (signer.authentication ?? []).map((m) => tr.t(AUTHENTICATION_KEYS[m], { phone })),
  );
  return text.charAt(0).toLocaleUpperCase(tr.locale) + text.slice(1);
}
