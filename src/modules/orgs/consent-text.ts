import type { LocaleCode } from '../../i18n/locales.ts';
import { ar } from './consent-texts/ar.ts';
import { cs } from './consent-texts/cs.ts';
import { da } from './consent-texts/da.ts';
import { de } from './consent-texts/de.ts';
import { en } from './consent-texts/en.ts';
import { es } from './consent-texts/es.ts';
import { fi } from './consent-texts/fi.ts';
import { fr } from './consent-texts/fr.ts';
import { he } from './consent-texts/he.ts';
import { it } from './consent-texts/it.ts';
import { ja } from './consent-texts/ja.ts';
import { nb } from './consent-texts/nb.ts';
import { nl } from './consent-texts/nl.ts';
import { pl } from './consent-texts/pl.ts';
import { pt } from './consent-texts/pt.ts';
import { ru } from './consent-texts/ru.ts';
import { sv } from './consent-texts/sv.ts';
import { tr } from './consent-texts/tr.ts';
import { uk } from './consent-texts/uk.ts';
import { zh } from './consent-texts/zh.ts';
import { zhHant } from './consent-texts/zh-hant.ts';

/*
 * Signet's default disclosure and consent to do business electronically (ESIGN, 15 U.S.C.
 * §7001(c)), shown when an organization requires consent and has not written its own text. It
 * names what §101(c) asks a consumer be told: the right to a paper copy and how to get one, the
 * right to withdraw consent and what withdrawing means, the hardware and software needed, and how
 * to update contact details. One entry per signer language (every locale of i18n/locales.ts, so a
 * signer reads it in the language chosen for it); `en` is the reference and every other entry has
 * its paragraphs, in order, quoting the signing page's own "I agree" / "I do not agree" labels of
 * that language. The translations were not reviewed by native speakers or lawyers (docs/
 * signer-authentication.md).
 */
const PARAGRAPHS: Readonly<Record<LocaleCode, readonly string[]>> = {
  en,
  de,
  fr,
  es,
  it,
  pt,
  nl,
  pl,
  cs,
  sv,
  da,
  nb,
  fi,
  tr,
  ru,
  uk,
  ar,
  he,
  ja,
  zh,
  'zh-Hant': zhHant,
};

/** Locale → the default text, its paragraphs separated by an empty line. */
export const DEFAULT_CONSENT_TEXT: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(PARAGRAPHS).map(([locale, paragraphs]) => [locale, paragraphs.join('\n\n')]),
);

/** The stored `consent_text` as the API shows it: null, a string, or locale → string. */
export function parseConsentText(
  stored: string | null | undefined,
): string | Record<string, string> | null {
  if (!stored) return null;
  return JSON.parse(stored) as string | Record<string, string>;
}
