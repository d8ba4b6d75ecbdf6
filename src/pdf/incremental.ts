import type { PdfFile } from './reader.ts';
import { type PdfRef, dict, name, serialize, type PdfValue } from './syntax.ts';

/**
 * Assembles an incremental update (ISO 32000-1 §7.5.6): the new and changed objects, then a
 * cross-reference section for exactly those objects whose /Prev points at the original's,
 * so every original byte stays where it was. The section has the original's form: a
 * classic table after a table, an xref stream after an xref stream.
 */

export interface UpdateObject {
  ref: PdfRef;
  bytes: Buffer;
}

export interface AssembledUpdate {
  bytes: Buffer;
  /** Offset of each object within `bytes`. */
  offsets: Map<number, number>;
}

export function assembleUpdate(
  file: PdfFile,
  objects: readonly UpdateObject[],
  trailer: { id: PdfValue; allocXrefStream: () => PdfRef },
): AssembledUpdate {
  // The original may not end with an end-of-line; objects must start on a new line.
  const parts: Buffer[] = [Buffer.from('\n')];
  let length = 1;
  const offsets = new Map<number, number>();
  for (const obj of objects) {
    offsets.set(obj.ref.num, length);
    parts.push(obj.bytes);
    length += obj.bytes.length;
  }

  const common = {
    Root: file.trailer.get('Root'),
    Info: file.trailer.get('Info'),
    ID: trailer.id,
    Prev: file.startxref,
  };
  const rows = objects.map((o) => ({
    num: o.ref.num,
    gen: o.ref.gen,
    offset: file.size + offsets.get(o.ref.num)!,
  }));

  if (file.usesXrefStream) {
    const ref = trailer.allocXrefStream();
    const xrefOffset = file.size + length;
    rows.push({ num: ref.num, gen: 0, offset: xrefOffset });
    rows.sort((a, b) => a.num - b.num);
    const size = Math.max(file.nextObjectNumber, rows[rows.length - 1].num + 1);
    const width = xrefOffset + 1 >= 2 ** 32 ? 8 : 4;
    const data = Buffer.alloc(rows.length * (1 + width + 2));
    rows.forEach((row, i) => {
      const at = i * (1 + width + 2);
      data[at] = 1;
      for (let b = width, v = row.offset; b >= 1; b--, v = Math.floor(v / 256))
        data[at + b] = v % 256;
      data.writeUInt16BE(row.gen, at + 1 + width);
    });
    const d = dict({
      Type: name('XRef'),
      Size: size,
      Index: subsections(rows).flatMap((s) => [s.start, s.rows.length]),
      W: [1, width, 2],
      ...common,
      Length: data.length,
    });
    parts.push(Buffer.from(`${ref.num} 0 obj\n${serialize(d)}\nstream\n`, 'latin1'), data);
    parts.push(Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefOffset}\n%%EOF\n`, 'latin1'));
  } else {
    rows.sort((a, b) => a.num - b.num);
    const size = Math.max(file.nextObjectNumber, rows[rows.length - 1].num + 1);
    let table = 'xref\n';
    for (const s of subsections(rows)) {
      table += `${s.start} ${s.rows.length}\n`;
      for (const row of s.rows)
        table += `${String(row.offset).padStart(10, '0')} ${String(row.gen).padStart(5, '0')} n\r\n`;
    }
    const d = dict({ Size: size, ...common });
    parts.push(
      Buffer.from(
        `${table}trailer\n${serialize(d)}\nstartxref\n${file.size + length}\n%%EOF\n`,
        'latin1',
      ),
    );
  }
  return { bytes: Buffer.concat(parts), offsets };
}

/** Runs of consecutive object numbers, one xref subsection each. */
function subsections<T extends { num: number }>(rows: T[]): Array<{ start: number; rows: T[] }> {
  const out: Array<{ start: number; rows: T[] }> = [];
  for (const row of rows) {
    const last = out[out.length - 1];
    if (last && last.start + last.rows.length === row.num) last.rows.push(row);
    else out.push({ start: row.num, rows: [row] });
  }
  return out;
}
