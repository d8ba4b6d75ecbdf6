import fs from 'node:fs';
import path from 'node:path';
import { FAMILIES, type FamilyId, readSlices } from '../fonts/families.ts';
import { HAN_DEFAULT, HAN_TEXT_RULES, type HanFamily } from '../fonts/han.ts';
import { SIGNATURE_PAGE_FAMILIES } from '../fonts/typed-signature.ts';

/**
 * The typed signature's faces for the browser, from the module that decides them for the PDF
 * too (fonts/typed-signature.ts): `@font-face` rules for every slice of every face (the browser
 * downloads only the slices a signature's characters fall in, by `unicode-range`), the
 * `--script` font list in the same order the PDF tries them, a class per Han face, and the Han
 * rule as data for the client (`signature-faces.js`), so the page shows what the PDF will draw.
 */

const HAN: HanFamily[] = ['han-ja', 'han-ko', 'han-zh-hans', 'han-zh-hant'];
const cssFamily = (family: FamilyId) => `Signet ${FAMILIES[family].name}`;
const range = (ranges: Array<[number, number]>) =>
  ranges
    .map(([a, b]) => (a === b ? `U+${a.toString(16)}` : `U+${a.toString(16)}-${b.toString(16)}`))
    .join(', ');

interface SignatureFontAssets {
  /** Appended to the page's stylesheet. */
  css: string;
  /**
   * A stylesheet per Han face (`signature-han-ja.css`…), linked by the client only when a typed
   * signature has such characters: their ranges alone are some 100 KB per face.
   */
  hanCss: Map<string, string>;
  /** The client module with the Han rule as data. */
  script: string;
  /** `fonts/<file>` → the file on disk (served from there: the CJK faces are megabytes). */
  files: Map<string, string>;
}

export function signatureFontAssets(): SignatureFontAssets {
  const files = new Map<string, string>();
  const faces = (family: FamilyId): string[] =>
    readSlices(family)
      .filter((slice) => fs.existsSync(slice.file))
      .map((slice) => {
        const name = `fonts/${path.basename(slice.file)}`;
        files.set(name, slice.file);
        return `@font-face{font-family:"${cssFamily(family)}";src:url('${name}') format('woff2');unicode-range:${range(slice.ranges)};font-display:swap}`;
      });
  const rules = SIGNATURE_PAGE_FAMILIES.flatMap(faces);
  const hanCss = new Map(HAN.map((han) => [`signature-${han}.css`, `${faces(han).join('\n')}\n`]));
  const list = (han: HanFamily) =>
    [...SIGNATURE_PAGE_FAMILIES, han].map((f) => `"${cssFamily(f)}"`).join(', ');
  rules.push(`:root{--script:${list(HAN_DEFAULT)}, cursive}`);
  for (const han of HAN) rules.push(`.sig-${han}{--script:${list(han)}, cursive}`);
  const script = `// Generated from fonts/han.ts: which Han face a typed signature is shown in.
export const HAN_TEXT_RULES = ${JSON.stringify(HAN_TEXT_RULES)};
export const HAN_DEFAULT = ${JSON.stringify(HAN_DEFAULT)};
`;
  return {
    css: `\n/* Typed-signature faces (web/signature-fonts.ts) */\n${rules.join('\n')}\n`,
    hanCss,
    script,
    files,
  };
}
