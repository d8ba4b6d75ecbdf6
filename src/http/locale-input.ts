import { Type } from 'typebox';
import { validation } from './errors.ts';
import { isTimeZone } from '../i18n/messages.ts';
import { LOCALE_CODES, LOCALE_TAG_MAX, type LocaleCode, matchLocale } from '../i18n/locales.ts';

/*
 * `locale` and `timeZone` as the API takes them: a language tag matched to a supported locale
 * (`pt-BR` → `pt`), an IANA time zone. Anything else is 400 `validation_error` naming what is
 * supported.
 */

const SUPPORTED = LOCALE_CODES.join(', ');

/** A language tag in a body (documents, signers, template roles, campaigns, bulk-send rows). */
export const LocaleTag = Type.String({
  minLength: 2,
  maxLength: LOCALE_TAG_MAX,
  description: `A language tag matched to a supported locale (${SUPPORTED}); a regional tag is matched to its language (\`pt-BR\` → \`pt\`, \`zh-TW\` → \`zh-Hant\`). See GET /api/v1/locales.`,
  examples: ['de'],
});

export const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'IANA time zone, e.g. `Europe/Berlin`',
  examples: ['Europe/Berlin'],
});

/** The supported locale a given tag stands for; 400 naming the supported ones otherwise. */
export function checkLocale(tag: string, path: string): LocaleCode {
  const locale = matchLocale(tag);
  if (!locale) throw validation(path, `must be a supported locale: ${SUPPORTED}`);
  return locale;
}

/** `checkLocale` that keeps null (inherit) and undefined (not given) as they are. */
export function checkOptionalLocale<T extends string | null | undefined>(
  tag: T,
  path: string,
): LocaleCode | Exclude<T, string> {
  if (typeof tag !== 'string') return tag as Exclude<T, string>;
  return checkLocale(tag, path);
}

export function checkTimeZone(zone: string, path: string): string {
  if (!isTimeZone(zone)) throw validation(path, 'must be an IANA time zone such as Europe/Berlin');
  // The runtime's own spelling (`europe/berlin` → `Europe/Berlin`).
  return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
}
