import type { FamilyId } from './families.ts';
import type { HanFamily } from './han.ts';

/**
 * Which face draws a typed signature, decided here only: the signing page shows the signature
 * in these faces (web/signature-fonts.ts serves them with this order) and the sealed PDF draws
 * it in the same ones, so the signed document shows what the signer saw and adopted.
 *
 * Dancing Script, a cursive, where it has the letters (Latin, with its European and Vietnamese
 * extensions); Noto Naskh Arabic, the calligraphic Arabic style, for Arabic script; every other
 * script in its own Noto face (Hebrew, Greek, Cyrillic, Devanagari, Thai, CJK in the face the
 * Han rule picks), as no cursive of those ships with Signet.
 */

const ARABIC = /[\p{Script=Arabic}]/u;

/** The faces tried first for a character of a typed signature, before the usual fallback. */
export function signatureFamilies(char: string, _han: HanFamily): readonly FamilyId[] {
  return ARABIC.test(char) ? ['naskh'] : ['script'];
}

/** Every family a typed signature may be drawn in, in the order the page lists them. */
export const SIGNATURE_PAGE_FAMILIES: readonly FamilyId[] = [
  'script',
  'naskh',
  'sans',
  'hebrew',
  'thai',
  'symbols',
  'emoji',
];
