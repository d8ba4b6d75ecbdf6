// The class that shows a typed signature in the faces the signed PDF draws it in: the Han face
// follows the same rule as the PDF (kana means Japanese, hangul Korean, else Simplified Chinese),
// served as data by the server (signature-faces.js). A Han face's stylesheet is linked the first
// time a signature needs it (its Unicode ranges are large).

import { HAN_DEFAULT, HAN_TEXT_RULES } from './signature-faces.js';

const RULES = HAN_TEXT_RULES.map((r) => ({ family: r.family, re: new RegExp(r.pattern, 'u') }));
const CJK =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u;
const linked = new Set();

/** `sig-han-ja`, `sig-han-ko`, `sig-han-zh-hans`… for a typed signature's text. */
export function typedSignatureClass(text) {
  const rule = RULES.find((r) => r.re.test(text));
  const family = rule ? rule.family : HAN_DEFAULT;
  if (CJK.test(text) && !linked.has(family)) {
    linked.add(family);
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = new URL(`./signature-${family}.css`, import.meta.url).href;
    document.head.append(link);
  }
  return `sig-${family}`;
}
