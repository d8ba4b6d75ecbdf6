import { bufferSource, Lexer } from './lexer.ts';
import { PdfSyntaxError, type PdfValue } from './syntax.ts';

/**
 * A page's or form's content stream as operations (ISO 32000-1 §7.8.2): each operator with its
 * operands and the bytes it spans, so a rewrite can replace single operations and copy every
 * other byte as it was.
 */

export interface ContentOp {
  operator: string;
  operands: PdfValue[];
  /** Byte range of the operation (its first operand to the end of its operator). */
  start: number;
  end: number;
}

/** Most operations one content stream may have before it is refused (a bound on work). */
const MAX_OPS = 2_000_000;

const isSpace = (c: number) =>
  c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;

/** Skips an inline image's data (`BI … ID <data> EI`): returns the position after `EI`. */
function skipInlineImage(data: Buffer, from: number): number {
  const id = data.indexOf('ID', from, 'latin1');
  if (id < 0) throw new PdfSyntaxError('an inline image without ID');
  for (let at = data.indexOf('EI', id + 3, 'latin1'); at >= 0; ) {
    const after = data[at + 2];
    if (isSpace(data[at - 1]) && (after === undefined || isSpace(after))) return at + 2;
    at = data.indexOf('EI', at + 2, 'latin1');
  }
  throw new PdfSyntaxError('an inline image without EI');
}

/** The operations of decoded content-stream bytes, in order. */
export function parseContent(data: Buffer): ContentOp[] {
  const lx = new Lexer(bufferSource(data));
  const ops: ContentOp[] = [];
  let operands: PdfValue[] = [];
  let start = -1;
  for (;;) {
    lx.skipSpace();
    const c = lx.src.at(lx.pos);
    if (c === -1) break;
    if (start < 0) start = lx.pos;
    const operand =
      c === 0x2f ||
      c === 0x3c ||
      c === 0x28 ||
      c === 0x5b ||
      c === 0x2b ||
      c === 0x2d ||
      c === 0x2e ||
      (c >= 0x30 && c <= 0x39);
    if (operand) {
      operands.push(lx.value());
      continue;
    }
    const word = lx.word();
    if (word === '') lx.fail('unexpected delimiter in a content stream');
    if (word === 'true' || word === 'false' || word === 'null') {
      operands.push(word === 'null' ? 0 : word === 'true' ? 1 : 0);
      continue;
    }
    if (word === 'BI') lx.pos = skipInlineImage(data, lx.pos);
    ops.push({ operator: word, operands, start, end: lx.pos });
    if (ops.length > MAX_OPS)
      throw new PdfSyntaxError(`a content stream with more than ${MAX_OPS} operations`);
    operands = [];
    start = -1;
  }
  return ops;
}

const ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12 };

/** The bytes of a string operand as written: `(literal)` with its escapes, or `<hex>`. */
export function stringBytes(raw: string): Buffer {
  if (raw.startsWith('<')) {
    const hex = raw.slice(1, -1).replace(/[^0-9a-fA-F]/g, '');
    return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
  }
  const out: number[] = [];
  const s = raw.slice(1, -1);
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch !== '\\') {
      out.push(ch.charCodeAt(0) & 0xff);
      continue;
    }
    const next = s[++i];
    if (next === undefined) break;
    if (next in ESCAPES) out.push(ESCAPES[next]);
    else if (next >= '0' && next <= '7') {
      let oct = next;
      while (oct.length < 3 && s[i + 1] >= '0' && s[i + 1] <= '7') oct += s[++i];
      out.push(Number.parseInt(oct, 8) & 0xff);
    } else if (next === '\r') {
      if (s[i + 1] === '\n') i++;
    } else if (next !== '\n') out.push(next.charCodeAt(0) & 0xff);
  }
  return Buffer.from(out);
}
