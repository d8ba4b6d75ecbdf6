/**
 * The languages Signet speaks to signers and visitors, and how a requested language tag is matched
 * to one of them (README "Languages"). English is the reference catalog; every other catalog has
 * exactly its keys (test/i18n).
 */

export const LOCALES = [
  { code: 'en', name: 'English', nativeName: 'English', direction: 'ltr' },
  { code: 'de', name: 'German', nativeName: 'Deutsch', direction: 'ltr' },
  { code: 'fr', name: 'French', nativeName: 'Français', direction: 'ltr' },
  { code: 'es', name: 'Spanish', nativeName: 'Español', direction: 'ltr' },
  { code: 'it', name: 'Italian', nativeName: 'Italiano', direction: 'ltr' },
  { code: 'pt', name: 'Portuguese', nativeName: 'Português', direction: 'ltr' },
  { code: 'nl', name: 'Dutch', nativeName: 'Nederlands', direction: 'ltr' },
  { code: 'pl', name: 'Polish', nativeName: 'Polski', direction: 'ltr' },
  { code: 'cs', name: 'Czech', nativeName: 'Čeština', direction: 'ltr' },
  { code: 'sv', name: 'Swedish', nativeName: 'Svenska', direction: 'ltr' },
  { code: 'da', name: 'Danish', nativeName: 'Dansk', direction: 'ltr' },
  { code: 'nb', name: 'Norwegian Bokmål', nativeName: 'Norsk bokmål', direction: 'ltr' },
  { code: 'fi', name: 'Finnish', nativeName: 'Suomi', direction: 'ltr' },
  { code: 'tr', name: 'Turkish', nativeName: 'Türkçe', direction: 'ltr' },
  { code: 'ru', name: 'Russian', nativeName: 'Русский', direction: 'ltr' },
  { code: 'uk', name: 'Ukrainian', nativeName: 'Українська', direction: 'ltr' },
  { code: 'ar', name: 'Arabic', nativeName: 'العربية', direction: 'rtl' },
  { code: 'he', name: 'Hebrew', nativeName: 'עברית', direction: 'rtl' },
  { code: 'ja', name: 'Japanese', nativeName: '日本語', direction: 'ltr' },
  { code: 'zh', name: 'Chinese (Simplified)', nativeName: '简体中文', direction: 'ltr' },
  { code: 'zh-Hant', name: 'Chinese (Traditional)', nativeName: '繁體中文', direction: 'ltr' },
] as const;

export type LocaleCode = (typeof LOCALES)[number]['code'];
export type Direction = 'ltr' | 'rtl';

export const DEFAULT_LOCALE: LocaleCode = 'en';
export const LOCALE_CODES: readonly LocaleCode[] = LOCALES.map((l) => l.code);

const BY_CODE = new Map<string, LocaleCode>(LOCALES.map((l) => [l.code.toLowerCase(), l.code]));

/** Longest a language tag may be before it is looked at (BCP 47 tags in practice stay far below). */
export const LOCALE_TAG_MAX = 35;

/**
 * The supported locale a language tag stands for, or undefined: exact codes first (any case), then
 * Chinese by script or region (`zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO` → `zh-Hant`; other `zh-*` →
 * `zh`), then the tag's language (`pt-BR` → `pt`, `de-AT` → `de`; `no`/`nn` → `nb`).
 */
export function matchLocale(tag: string | null | undefined): LocaleCode | undefined {
  if (!tag || tag.length > LOCALE_TAG_MAX) return undefined;
  const lower = tag.trim().replace(/_/g, '-').toLowerCase();
  const exact = BY_CODE.get(lower);
  if (exact) return exact;
  const parts = lower.split('-');
  if (parts[0] === 'zh') {
    if (parts.includes('hant') || parts.some((p) => p === 'tw' || p === 'hk' || p === 'mo'))
      return 'zh-Hant';
    return 'zh';
  }
  if (parts[0] === 'no' || parts[0] === 'nn') return 'nb';
  return BY_CODE.get(parts[0]);
}

export function directionOf(locale: LocaleCode): Direction {
  return LOCALES.find((l) => l.code === locale)?.direction ?? 'ltr';
}

/**
 * The best supported match of an `Accept-Language` header (highest q first, header order among
 * equals), or undefined when none of its languages is supported. At most 20 entries are read.
 */
export function matchAcceptLanguage(header: string | undefined): LocaleCode | undefined {
  if (!header) return undefined;
  const entries = header
    .slice(0, 1000)
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag.trim(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((e) => e.tag && e.tag !== '*' && e.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const e of entries) {
    const match = matchLocale(e.tag);
    if (match) return match;
  }
  return undefined;
}

/**
 * The first of `candidates` that names a supported locale, else English. A signer:
 * `?lang=`, signer, document, organization; a campaign visitor: `?lang=`, campaign, the browser's
 * `Accept-Language`, organization.
 */
export function resolveLocale(...candidates: (string | null | undefined)[]): LocaleCode {
  for (const candidate of candidates) {
    const match = matchLocale(candidate);
    if (match) return match;
  }
  return DEFAULT_LOCALE;
}
