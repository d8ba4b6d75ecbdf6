import { FontNames } from '@pdf-lib/standard-fonts';
import { StandardFontEmbedder } from 'pdf-lib';
import { EVIDENCE_FILE_NAME } from './evidence.ts';
import { readDocumentTree, type DocumentTree } from './pages.ts';
import { PdfFile } from './reader.ts';
import { PdfRaw, PdfStream, isDict, type PdfDict, type PdfValue } from './syntax.ts';

/**
 * Finds what a seal lost. Signet's first sealer wrote the certificate page in the standard
 * WinAnsi fonts, drawing `?` for every character they lack (Arabic, Polish Ł, CJK, emoji…).
 * Such a file cannot be resealed (its signature covers those bytes), but it carries the real
 * text in its embedded evidence JSON. This reads both: the certificate page's text as drawn
 * and the evidence, and reports each value whose drawing replaced characters with `?`.
 */

export interface LostValue {
  /** Where in the evidence: `document.name`, `signers[1].name`, `timeline[3].event`… */
  where: string;
  value: string;
  /** As the seal drew it. */
  drawn: string;
}

export interface LostTextReport {
  /** Whether the file embeds Signet's evidence JSON (without it nothing can be compared). */
  evidence: boolean;
  lost: LostValue[];
  /** The signers the evidence names, to tell them. */
  people: Array<{ name: string; email: string }>;
}

/** WinAnsi as the old sealer used it: what Helvetica's encoding cannot hold became `?`. */
const winAnsi = StandardFontEmbedder.for(FontNames.Helvetica).encoding;
const asDrawnBefore = (text: string) =>
  [...text.replace(/[\t\r\n]+/g, ' ')]
    .map((ch) => {
      const cp = ch.codePointAt(0) ?? 0;
      return cp >= 0x20 && winAnsi.canEncodeUnicodeCodePoint(cp) ? ch : '?';
    })
    .join('');

/** Byte → character of that encoding, built from the encoder itself (so decoding mirrors it). */
let winAnsiBytes: Map<number, string> | undefined;
function decodeWinAnsi(bytes: Buffer): string {
  if (!winAnsiBytes) {
    winAnsiBytes = new Map();
    for (let cp = 0x20; cp <= 0x2122; cp++) {
      if (!winAnsi.canEncodeUnicodeCodePoint(cp)) continue;
      const { code } = winAnsi.encodeUnicodeCodePoint(cp);
      if (!winAnsiBytes.has(code)) winAnsiBytes.set(code, String.fromCodePoint(cp));
    }
  }
  const table = winAnsiBytes;
  return [...bytes].map((b) => table.get(b) ?? '?').join('');
}

/** Reads the sealed file at `path` (one document at a time: nothing is kept). */
export function findLostText(path: string): LostTextReport {
  const file = PdfFile.open(path);
  try {
    const tree = readDocumentTree(file);
    const evidence = readEvidence(file, tree.catalog);
    if (!evidence) return { evidence: false, lost: [], people: [] };
    const drawn = drawnWinAnsiLines(file, tree).join('\n');
    const flat = drawn.replace(/\s+/g, ' ');
    const lost: LostValue[] = [];
    for (const [where, value] of evidenceTexts(evidence)) {
      const before = asDrawnBefore(value);
      if (before === value) continue;
      // Wrapped values come back with their lines joined by one space, as they were split.
      if (flat.includes(before.replace(/\s+/g, ' ').trim()))
        lost.push({ where, value, drawn: before });
    }
    const people = (Array.isArray(evidence.signers) ? evidence.signers : []).map(
      (p: { name?: unknown; email?: unknown }) => ({
        name: String(p?.name ?? ''),
        email: String(p?.email ?? ''),
      }),
    );
    return { evidence: true, lost, people };
  } finally {
    file.close();
  }
}

/** The certificate pages' lines drawn with `<hex> Tj` in a standard font (the first sealer's way). */
function drawnWinAnsiLines(file: PdfFile, tree: DocumentTree): string[] {
  const lines: string[] = [];
  // Certificate pages are the last ones, each with only Signet's fonts (named Sg…).
  for (let i = tree.pages.length - 1; i >= 0; i--) {
    const page = tree.pages[i].dict;
    const resources = file.resolve(page.get('Resources'));
    const fonts = isDict(resources) ? file.resolve(resources.get('Font')) : undefined;
    if (!isDict(fonts) || ![...fonts.keys()].every((k) => k.startsWith('Sg'))) break;
    for (const stream of contentStreams(file, page.get('Contents'))) {
      const content = file.streamData(stream).toString('latin1');
      for (const m of content.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g))
        lines.push(decodeWinAnsi(Buffer.from(m[1], 'hex')));
    }
  }
  return lines;
}

function contentStreams(file: PdfFile, contents: PdfValue | undefined): PdfStream[] {
  const value = file.resolve(contents);
  if (value instanceof PdfStream) return [value];
  if (!Array.isArray(value)) return [];
  return value.map((v) => file.resolve(v)).filter((v): v is PdfStream => v instanceof PdfStream);
}

function readEvidence(file: PdfFile, catalog: PdfDict): Record<string, unknown> | null {
  const names = file.resolve(catalog.get('Names'));
  const tree = isDict(names) ? file.resolve(names.get('EmbeddedFiles')) : undefined;
  if (!isDict(tree)) return null;
  const leaves: PdfDict[] = [tree];
  const kids = file.resolve(tree.get('Kids'));
  if (Array.isArray(kids))
    for (const k of kids) {
      const leaf = file.resolve(k);
      if (isDict(leaf)) leaves.push(leaf);
    }
  for (const leaf of leaves) {
    const pairs = file.resolve(leaf.get('Names'));
    if (!Array.isArray(pairs)) continue;
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const key = file.resolve(pairs[i]);
      if (!(key instanceof PdfRaw) || !key.text.includes(EVIDENCE_FILE_NAME)) continue;
      const spec = file.resolve(pairs[i + 1]);
      const ef = isDict(spec) ? file.resolve(spec.get('EF')) : undefined;
      const stream = isDict(ef) ? file.resolve(ef.get('F')) : undefined;
      if (!(stream instanceof PdfStream)) continue;
      try {
        return JSON.parse(file.streamData(stream).toString('utf8')) as Record<string, unknown>;
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** Every text of the evidence the certificate page draws, with where it is. */
function evidenceTexts(evidence: Record<string, unknown>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const add = (where: string, v: unknown) => {
    if (typeof v === 'string' && v && !v.startsWith('data:')) out.push([where, v]);
  };
  const list = (v: unknown): Array<Record<string, unknown>> =>
    Array.isArray(v)
      ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object')
      : [];
  const doc = evidence.document as Record<string, unknown> | undefined;
  add('document.name', doc?.name);
  for (const [i, s] of list(evidence.signers).entries()) {
    for (const k of ['name', 'email', 'role', 'location', 'userAgent', 'signature'])
      add(`signers[${i}].${k}`, s[k]);
  }
  for (const [i, a] of list(evidence.attachments).entries()) {
    add(`attachments[${i}].name`, a.name);
    add(`attachments[${i}].signerName`, a.signerName);
  }
  for (const [i, e] of list(evidence.timeline).entries()) {
    add(`timeline[${i}].event`, e.event);
    add(`timeline[${i}].location`, e.location);
  }
  return out;
}
