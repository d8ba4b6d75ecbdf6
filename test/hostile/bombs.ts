import { createDeflate, deflateSync } from 'node:zlib';

/*
 * Hostile inputs, built at test time: PDFs whose streams inflate far past their size, xref
 * sections that claim millions of entries, nesting without end, and PNGs whose header declares
 * more pixels than anyone should decode. Shared by test/hostile and `npm run bench -- hostile`.
 */

/** zlib data that inflates to `bytes` of `fill` (deflate's best ratio is ~1000:1), built in chunks. */
export async function deflatedRun(
  bytes: number,
  prefix: Buffer = Buffer.alloc(0),
  fill = 0x20,
): Promise<Buffer> {
  const z = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((resolve, reject) => {
    z.on('end', resolve);
    z.on('error', reject);
  });
  z.write(prefix);
  const chunk = Buffer.alloc(1024 * 1024, fill);
  for (let left = bytes; left > 0; left -= chunk.length) {
    const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
    if (!z.write(part)) await new Promise((r) => z.once('drain', r));
  }
  z.end();
  await done;
  return Buffer.concat(out);
}

type Obj = { num: number; body: Buffer };
const obj = (num: number, body: string | Buffer): Obj => ({
  num,
  body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
});
const streamObj = (num: number, dict: string, data: Buffer): Obj =>
  obj(
    num,
    Buffer.concat([
      Buffer.from(`${dict.replace(/>>$/, '')}/Length ${data.length}>>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]),
  );

/**
 * A PDF from its objects, with an uncompressed xref stream (so objects may live in object
 * streams: `compressed` lists [object, its object stream, index]). `xrefDict` adds to or
 * overrides the xref stream's dictionary (a hostile /W or /Index).
 */
function assemble(
  objects: Obj[],
  compressed: Array<[number, number, number]>,
  root: number,
  xrefDict = '',
): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let pos = parts[0].length;
  const offsets = new Map<number, number>();
  for (const o of objects) {
    offsets.set(o.num, pos);
    const b = Buffer.concat([
      Buffer.from(`${o.num} 0 obj\n`, 'latin1'),
      o.body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(b);
    pos += b.length;
  }
  const xrefNum = Math.max(...objects.map((o) => o.num), ...compressed.map((c) => c[0])) + 1;
  offsets.set(xrefNum, pos);
  const size = xrefNum + 1;
  const rows = Buffer.alloc(size * 7);
  for (let n = 0; n < size; n++) {
    const c = compressed.find((x) => x[0] === n);
    if (c) {
      rows[n * 7] = 2;
      rows.writeUInt32BE(c[1], n * 7 + 1);
      rows.writeUInt16BE(c[2], n * 7 + 5);
    } else if (offsets.has(n)) {
      rows[n * 7] = 1;
      rows.writeUInt32BE(offsets.get(n)!, n * 7 + 1);
    }
  }
  const dict = xrefDict || `/W [1 4 2]/Index [0 ${size}]`;
  const x = streamObj(xrefNum, `<</Type/XRef/Size ${size}/Root ${root} 0 R${dict}>>`, rows);
  parts.push(
    Buffer.concat([
      Buffer.from(`${xrefNum} 0 obj\n`, 'latin1'),
      x.body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]),
  );
  parts.push(Buffer.from(`startxref\n${pos}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

const PAGES = '<</Type/Pages/Kids [3 0 R]/Count 1>>';
const PAGE = '<</Type/Page/Parent 2 0 R/MediaBox [0 0 612 792]>>';

/**
 * A one-page PDF whose catalog sits in an object stream that inflates to `inflatedBytes`;
 * `padBytes` adds an unused stream of that size (a file past the size parsed at upload).
 */
export async function objectStreamBomb(inflatedBytes: number, padBytes = 0): Promise<Buffer> {
  const catalog = '<</Type/Catalog/Pages 2 0 R>>';
  const header = Buffer.from(`1 0 `, 'latin1');
  const first = header.length;
  const data = await deflatedRun(
    inflatedBytes,
    Buffer.concat([header, Buffer.from(catalog, 'latin1')]),
  );
  const objects = [
    obj(2, PAGES),
    obj(3, PAGE),
    streamObj(4, `<</Type/ObjStm/N 1/First ${first}/Filter/FlateDecode>>`, data),
  ];
  if (padBytes > 0) objects.push(streamObj(5, '<<>>', Buffer.alloc(padBytes, 0x20)));
  return assemble(objects, [[1, 4, 0]], 1);
}

/**
 * The same bomb where Signet's reader cannot read the file (the startxref points nowhere), so the
 * file goes to the fallback that rebuilds it (pdf-lib, which inflates every object stream).
 */
export async function brokenXrefObjectStreamBomb(
  inflatedBytes: number,
  padBytes = 0,
): Promise<Buffer> {
  const pdf = await objectStreamBomb(inflatedBytes, padBytes);
  const text = pdf.subarray(pdf.length - 40).toString('latin1');
  return Buffer.concat([
    pdf.subarray(0, pdf.length - 40),
    Buffer.from(text.replace(/startxref\n\d+/, 'startxref\n7'), 'latin1'),
  ]);
}

/** An xref stream with `/W [0 0 0]` whose /Index claims `entries` objects: no data, a huge map. */
export function zeroWidthXref(entries = 50_000_000): Buffer {
  return assemble(
    [obj(1, '<</Type/Catalog/Pages 2 0 R>>'), obj(2, PAGES), obj(3, PAGE)],
    [],
    1,
    `/W [0 0 0]/Index [0 ${entries}]`,
  );
}

/** A catalog holding arrays nested `depth` deep. */
export function deepNesting(depth = 200_000): Buffer {
  return assemble(
    [
      obj(1, `<</Type/Catalog/Pages 2 0 R/Junk ${'['.repeat(depth)}${']'.repeat(depth)}>>`),
      obj(2, PAGES),
      obj(3, PAGE),
    ],
    [],
    1,
  );
}

/** A page tree `depth` levels deep (each /Pages node has one kid). */
export function deepPageTree(depth = 5000): Buffer {
  const objects: Obj[] = [obj(1, '<</Type/Catalog/Pages 2 0 R>>')];
  for (let i = 0; i < depth; i++)
    objects.push(obj(2 + i, `<</Type/Pages/Kids [${3 + i} 0 R]/Count 1>>`));
  objects.push(obj(2 + depth, '<</Type/Page/MediaBox [0 0 612 792]>>'));
  return assemble(objects, [], 1);
}

/** An object stream that holds its own /Length: reading it needs reading it. */
export function selfReferencingObjectStream(): Buffer {
  const catalog = '<</Type/Catalog/Pages 2 0 R>>';
  const inner = Buffer.from(`1 0 5 ${catalog.length + 1} ${catalog} 10`, 'latin1');
  const data = deflateSync(inner);
  const body = Buffer.concat([
    Buffer.from(`<</Type/ObjStm/N 2/First 8/Filter/FlateDecode/Length 5 0 R>>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
  return assemble(
    [obj(2, PAGES), obj(3, PAGE), obj(4, body)],
    [
      [1, 4, 0],
      [5, 4, 1],
    ],
    1,
  );
}

// ---------------------------------------------------------------------------------------
// PNG

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid grayscale PNG declaring `width` × `height` pixels, all white: the IDAT is small
 * (rows of zeros compress ~1000:1) but decoding it means `width * height` bytes or more.
 */
export async function pngBomb(width = 20_000, height = 20_000): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  // Each row: filter byte 0 then `width` zero bytes; all zeros compress to almost nothing.
  const idat = await deflatedRun((width + 1) * height, Buffer.alloc(0), 0);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;
