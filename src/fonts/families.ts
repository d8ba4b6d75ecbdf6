import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The typefaces Signet draws text with, all installed from the package registry with Signet
 * itself (no system font is ever read). Each family is a Fontsource package: the family split
 * into WOFF2 slices by Unicode range (`unicode.json` lists each slice's range), so a document
 * loads only the slices its text needs; a large CJK family is 100-odd slices of a few dozen KB.
 * Most are variable fonts: one file serves the regular and the bold weight.
 */

export type FamilyId =
  | 'sans'
  | 'mono'
  | 'arabic'
  | 'naskh'
  | 'hebrew'
  | 'thai'
  | 'han-ja'
  | 'han-ko'
  | 'han-zh-hans'
  | 'han-zh-hant'
  | 'symbols'
  | 'emoji'
  | 'script';

interface FamilySpec {
  id: FamilyId;
  /** The name a person sees (font menus, the documentation). */
  name: string;
  /** The package that ships it. */
  pkg: string;
  /** Fontsource's file prefix (`noto-sans-jp` in `noto-sans-jp-12-wght-normal.woff2`). */
  fileId: string;
  /** Variable along `wght` (one file per slice), or one static 400 file per slice. */
  variable: boolean;
}

export const FAMILIES: Record<FamilyId, FamilySpec> = {
  sans: {
    id: 'sans',
    name: 'Noto Sans',
    pkg: '@fontsource-variable/noto-sans',
    fileId: 'noto-sans',
    variable: true,
  },
  mono: {
    id: 'mono',
    name: 'Noto Sans Mono',
    pkg: '@fontsource-variable/noto-sans-mono',
    fileId: 'noto-sans-mono',
    variable: true,
  },
  arabic: {
    id: 'arabic',
    name: 'Noto Sans Arabic',
    pkg: '@fontsource-variable/noto-sans-arabic',
    fileId: 'noto-sans-arabic',
    variable: true,
  },
  naskh: {
    id: 'naskh',
    name: 'Noto Naskh Arabic',
    pkg: '@fontsource-variable/noto-naskh-arabic',
    fileId: 'noto-naskh-arabic',
    variable: true,
  },
  hebrew: {
    id: 'hebrew',
    name: 'Noto Sans Hebrew',
    pkg: '@fontsource-variable/noto-sans-hebrew',
    fileId: 'noto-sans-hebrew',
    variable: true,
  },
  thai: {
    id: 'thai',
    name: 'Noto Sans Thai',
    pkg: '@fontsource-variable/noto-sans-thai',
    fileId: 'noto-sans-thai',
    variable: true,
  },
  'han-ja': {
    id: 'han-ja',
    name: 'Noto Sans JP',
    pkg: '@fontsource-variable/noto-sans-jp',
    fileId: 'noto-sans-jp',
    variable: true,
  },
  'han-ko': {
    id: 'han-ko',
    name: 'Noto Sans KR',
    pkg: '@fontsource-variable/noto-sans-kr',
    fileId: 'noto-sans-kr',
    variable: true,
  },
  'han-zh-hans': {
    id: 'han-zh-hans',
    name: 'Noto Sans SC',
    pkg: '@fontsource-variable/noto-sans-sc',
    fileId: 'noto-sans-sc',
    variable: true,
  },
  'han-zh-hant': {
    id: 'han-zh-hant',
    name: 'Noto Sans TC',
    pkg: '@fontsource-variable/noto-sans-tc',
    fileId: 'noto-sans-tc',
    variable: true,
  },
  symbols: {
    id: 'symbols',
    name: 'Noto Sans Symbols 2',
    pkg: '@fontsource/noto-sans-symbols-2',
    fileId: 'noto-sans-symbols-2',
    variable: false,
  },
  emoji: {
    id: 'emoji',
    name: 'Noto Emoji',
    pkg: '@fontsource/noto-emoji',
    fileId: 'noto-emoji',
    variable: false,
  },
  script: {
    id: 'script',
    name: 'Dancing Script',
    pkg: '@fontsource/dancing-script',
    fileId: 'dancing-script',
    variable: false,
  },
};

/** One WOFF2 file of a family and the code points it covers, as [first, last] pairs. */
export interface Slice {
  family: FamilyId;
  /** Fontsource's subset name: `latin`, `cyrillic-ext`, `12` for the CJK slice `[12]`. */
  name: string;
  file: string;
  ranges: Array<[number, number]>;
}

const require = createRequire(import.meta.url);

/** Parses `U+0000-00FF,U+0131` into sorted [first, last] pairs. */
function parseUnicodeRange(value: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const part of value.split(',')) {
    const m = /^\s*U\+([0-9a-f]+)(?:-([0-9a-f]+))?\s*$/i.exec(part);
    if (!m) continue;
    const first = Number.parseInt(m[1], 16);
    ranges.push([first, m[2] ? Number.parseInt(m[2], 16) : first]);
  }
  return ranges.sort((a, b) => a[0] - b[0]);
}

/** The directory a family's package is installed in. */
function packageDir(family: FamilyId): string {
  return path.dirname(require.resolve(`${FAMILIES[family].pkg}/package.json`));
}

/** A family's slices, read from its package's `unicode.json` (a few KB; the fonts stay unread). */
export function readSlices(family: FamilyId): Slice[] {
  const spec = FAMILIES[family];
  const dir = packageDir(family);
  const table = JSON.parse(fs.readFileSync(path.join(dir, 'unicode.json'), 'utf8')) as Record<
    string,
    string
  >;
  return Object.entries(table).map(([key, value]) => {
    const name = key.replace(/^\[(\d+)\]$/, '$1');
    const suffix = spec.variable ? 'wght-normal' : '400-normal';
    return {
      family,
      name,
      file: path.join(dir, 'files', `${spec.fileId}-${name}-${suffix}.woff2`),
      ranges: parseUnicodeRange(value),
    };
  });
}
