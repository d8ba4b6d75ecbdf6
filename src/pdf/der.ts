/**
 * The few DER encodings the CMS signature needs, plus a reader for the certificate fields
 * it copies verbatim (issuer, serial number). Building from Buffers keeps every copied
 * structure byte-identical to the certificate's own encoding.
 */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

export const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
/** DER sorts the members of a SET OF by their encodings. */
export const setOf = (...items: Buffer[]) => tlv(0x31, ...[...items].sort(Buffer.compare));
export const octetString = (b: Buffer) => tlv(0x04, b);
export const integer = (n: number) => tlv(0x02, Buffer.from([n]));
export const nullValue = () => Buffer.from([0x05, 0x00]);
/** `[n]` constructed: EXPLICIT wrapping, or IMPLICIT for a SET/SEQUENCE given its content. */
export const contextTag = (n: number, ...content: Buffer[]) => tlv(0xa0 | n, ...content);

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [parts[0] * 40 + parts[1]];
  for (const part of parts.slice(2)) {
    const chunk = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128))
      chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

interface Tlv {
  tag: number;
  /** The whole encoding, header included. */
  raw: Buffer;
  content: Buffer;
}

function readTlv(buf: Buffer, offset = 0): Tlv {
  const tag = buf[offset];
  let len = buf[offset + 1];
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[offset + 2 + i];
    header += n;
  }
  if (offset + header + len > buf.length) throw new Error('truncated DER');
  return {
    tag,
    raw: buf.subarray(offset, offset + header + len),
    content: buf.subarray(offset + header, offset + header + len),
  };
}

function children(parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let pos = 0; pos < parent.content.length; ) {
    const child = readTlv(parent.content, pos);
    out.push(child);
    pos += child.raw.length;
  }
  return out;
}

/** The issuer Name and serialNumber INTEGER of an X.509 certificate, as encoded in it. */
export function issuerAndSerial(certDer: Buffer): { issuer: Buffer; serial: Buffer } {
  const tbs = children(readTlv(certDer))[0];
  const fields = children(tbs);
  const start = fields[0].tag === 0xa0 ? 1 : 0; // [0] version is optional
  return { serial: fields[start].raw, issuer: fields[start + 2].raw };
}
