import type { FamilyId } from './families.ts';

/**
 * Which face draws Han characters. The same ideograph is drawn differently in Japan, mainland
 * China, Taiwan/Hong Kong and Korea, so a document's locale picks the face; without one, the
 * script around the Han text decides (kana means Japanese, hangul Korean), else Simplified
 * Chinese. The signing page receives `HAN_TEXT_RULES` as data and applies the same rule.
 */

export type HanFamily = Extract<FamilyId, 'han-ja' | 'han-ko' | 'han-zh-hans' | 'han-zh-hant'>;

/** Tried in order on the text: the first whose pattern matches picks the face. */
export const HAN_TEXT_RULES: ReadonlyArray<{ family: HanFamily; pattern: string }> = [
  { family: 'han-ja', pattern: '[\\p{Script=Hiragana}\\p{Script=Katakana}]' },
  { family: 'han-ko', pattern: '\\p{Script=Hangul}' },
];
export const HAN_DEFAULT: HanFamily = 'han-zh-hans';

const RULES = HAN_TEXT_RULES.map((r) => ({ family: r.family, re: new RegExp(r.pattern, 'u') }));

/** The Han face a BCP 47 locale calls for (`ja`, `ko`, `zh-Hant`, `zh-TW`, `zh-HK`, `zh`…). */
function hanFamilyForLocale(locale: string | null | undefined): HanFamily | undefined {
  if (!locale) return undefined;
  const tag = locale.toLowerCase();
  if (/^ja(-|$)/.test(tag)) return 'han-ja';
  if (/^ko(-|$)/.test(tag)) return 'han-ko';
  if (/^zh(-|$)/.test(tag))
    return /-(hant|tw|hk|mo)(-|$)/.test(tag) ? 'han-zh-hant' : 'han-zh-hans';
  return undefined;
}

/** The locale's face when it names one, else the one the text's other scripts suggest. */
export function hanFamilyFor(text: string, locale?: string | null): HanFamily {
  const byLocale = hanFamilyForLocale(locale);
  if (byLocale) return byLocale;
  for (const rule of RULES) if (rule.re.test(text)) return rule.family;
  return HAN_DEFAULT;
}
