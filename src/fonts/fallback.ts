import type { FamilyId } from './families.ts';
import type { HanFamily } from './han.ts';

/**
 * The order in which families are tried for a character: the family made for its script first,
 * then every other one, so a character any shipped font has is never lost. Typed signatures put
 * their own faces in front (typed-signature.ts).
 */

const SCRIPT_FAMILY: Array<[RegExp, FamilyId | 'han']> = [
  [/[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}]/u, 'arabic'],
  [/\p{Script=Hebrew}/u, 'hebrew'],
  [/\p{Script=Thai}/u, 'thai'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'han-ja'],
  [/\p{Script=Hangul}/u, 'han-ko'],
  [/[\p{Script=Han}\p{Script=Bopomofo}\u3000-\u303f\uff00-\uffef]/u, 'han'],
  [/[\p{Emoji_Presentation}\p{Regional_Indicator}]/u, 'emoji'],
];

const GENERIC: FamilyId[] = ['sans', 'symbols', 'emoji', 'arabic', 'hebrew', 'thai'];
const HAN: HanFamily[] = ['han-ja', 'han-ko', 'han-zh-hans', 'han-zh-hant'];

/** The family made for this character's script ('sans' for Latin, Greek, Cyrillic, Devanagari…). */
function scriptFamily(char: string, han: HanFamily): FamilyId {
  for (const [re, family] of SCRIPT_FAMILY) {
    if (re.test(char)) return family === 'han' ? han : family;
  }
  return 'sans';
}

/** Families to try for a character, best first; `preferred` (a role's own faces) leads. */
export function fallbackChain(
  char: string,
  han: HanFamily,
  preferred: readonly FamilyId[] = [],
): FamilyId[] {
  const chain = [...preferred, scriptFamily(char, han), ...GENERIC, han, ...HAN];
  return [...new Set(chain)];
}
