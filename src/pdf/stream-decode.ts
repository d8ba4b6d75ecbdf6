import { inflateSync } from 'node:zlib';
import {
  PDF_LIMITS,
  PdfLimitError,
  PdfSyntaxError,
  PdfUnsupportedError,
  isCount,
  isDict,
  isName,
  type PdfDict,
} from './syntax.ts';

/** Decodes a stream's data, refusing (`PdfLimitError`) to produce more than `maxBytes`. */
export function decodeStream(d: PdfDict, raw: Buffer, maxBytes: number): Buffer {
  const filter = d.get('Filter');
  const filters = Array.isArray(filter) ? filter : filter === undefined ? [] : [filter];
  if (filters.length === 0) return raw;
  if (filters.length > 1 || !isName(filters[0], 'FlateDecode')) {
    throw new PdfUnsupportedError('only FlateDecode object and xref streams are supported');
  }
  let data: Buffer;
  try {
    data = inflateSync(raw, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PdfLimitError(
        `a stream inflates to more than ${maxBytes} bytes (limits: ${PDF_LIMITS.streamInflateBytes} per stream, ${PDF_LIMITS.fileInflateBytes} per file)`,
      );
    }
    throw new PdfSyntaxError('corrupt Flate stream');
  }
  let parms = d.get('DecodeParms');
  if (Array.isArray(parms)) parms = parms[0];
  if (!isDict(parms)) return data;
  const predictor = parms.get('Predictor');
  if (typeof predictor !== 'number' || predictor < 10) {
    if (typeof predictor === 'number' && predictor > 1) {
      throw new PdfUnsupportedError('TIFF predictor in a cross-reference stream');
    }
    return data;
  }
  const columns = parms.get('Columns') ?? 1;
  if (!isCount(columns) || columns < 1)
    throw new PdfSyntaxError('a PNG predictor with an invalid /Columns');
  return unpredictPng(data, columns);
}

/** Undoes the PNG row filters xref streams use (each row: a filter byte, then `columns` bytes). */
function unpredictPng(data: Buffer, columns: number): Buffer {
  const rows = Math.floor(data.length / (columns + 1));
  const out = Buffer.alloc(rows * columns);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (columns + 1)];
    const src = r * (columns + 1) + 1;
    const dst = r * columns;
    for (let c = 0; c < columns; c++) {
      const left = c > 0 ? out[dst + c - 1] : 0;
      const up = r > 0 ? out[dst - columns + c] : 0;
      const upLeft = r > 0 && c > 0 ? out[dst - columns + c - 1] : 0;
      const x = data[src + c];
      let v: number;
      if (type === 0) v = x;
      else if (type === 1) v = x + left;
      else if (type === 2) v = x + up;
      else if (type === 3) v = x + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        v = x + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      } else throw new PdfSyntaxError(`unknown PNG predictor ${type}`);
      out[dst + c] = v & 0xff;
    }
  }
  return out;
}
