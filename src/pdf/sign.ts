import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { SigningCertificate } from './certificate.ts';
import type { AssembledUpdate } from './incremental.ts';
import type { PdfFile } from './reader.ts';
import { formatNumber, pdfText, type PdfRef } from './syntax.ts';

const BYTE_RANGE_WIDTH = 48;
const COPY_CHUNK = 1 << 20;

interface SignatureSlot {
  ref: PdfRef;
  bytes: Buffer;
  /** Offsets within `bytes`: the blank ByteRange array's content, the `<` and the `>` of /Contents. */
  byteRangeAt: number;
  contentsStart: number;
  contentsEnd: number;
}

/** `D:YYYYMMDDHHmmSS+00'00'`, the PDF date form. */
export function pdfDate(iso: string): string {
  const d = new Date(iso);
  const t = Number.isNaN(d.getTime()) ? new Date(0) : d;
  return `D:${t.toISOString().replace(/[-:T]/g, '').slice(0, 14)}+00'00'`;
}

/**
 * The signature dictionary with room for the CMS: a blank /ByteRange of fixed width and a
 * zero-filled /Contents, both filled once the offsets and the digest are known.
 * `timestampReserve`: room for a signature timestamp token (PAdES B-T and above).
 */
export function signatureSlot(
  ref: PdfRef,
  cert: SigningCertificate,
  meta: { signingTime: string; reason: string; name: string },
  timestampReserve = 0,
): SignatureSlot {
  // Certificates, plus room for attributes (~350 bytes) and a signature of up to RSA-8192.
  const reserve = cert.chain.reduce((n, c) => n + c.length, 0) + 2048 + timestampReserve;
  const m = pdfText(pdfDate(meta.signingTime)).text;
  const tail = `/M${m}/Name${pdfText(meta.name).text}/Reason${pdfText(meta.reason).text}`;
  return slotFor(
    ref,
    '/Type/Sig/Filter/Adobe.PPKLite/SubFilter/ETSI.CAdES.detached',
    reserve,
    tail,
  );
}

/** A document timestamp dictionary (PAdES B-LTA: ETSI.RFC3161), room for a token of `reserve` bytes. */
export function docTimestampSlot(ref: PdfRef, reserve: number): SignatureSlot {
  return slotFor(
    ref,
    '/Type/DocTimeStamp/Filter/Adobe.PPKLite/SubFilter/ETSI.RFC3161',
    reserve,
    '',
  );
}

function slotFor(ref: PdfRef, entries: string, reserve: number, tail: string): SignatureSlot {
  const head = `${ref.num} ${ref.gen} obj\n<<${entries}/ByteRange[`;
  const middle = `]/Contents`;
  const contents = `<${'0'.repeat(reserve * 2)}>`;
  const text = head + ' '.repeat(BYTE_RANGE_WIDTH) + middle + contents + tail + '>>\nendobj\n';
  const contentsStart = head.length + BYTE_RANGE_WIDTH + middle.length;
  return {
    ref,
    bytes: Buffer.from(text, 'latin1'),
    byteRangeAt: head.length,
    contentsStart,
    contentsEnd: contentsStart + contents.length,
  };
}

/**
 * Writes original + update to `outputPath` and signs it in one pass: the original streams
 * through a SHA-256 (never held whole in memory); the hash state after everything before
 * /Contents is copied, one copy finishing the signed digest (rest of the update), the
 * other the file's own SHA-256 (CMS, then the rest). With `append`, `outputPath` is the
 * file itself and the update is appended to it (the file is read for the hash, not copied).
 * `contentsFor` turns the digest of the signed byte ranges into the /Contents bytes.
 */
export async function writeSigned(
  file: PdfFile,
  update: AssembledUpdate,
  slot: SignatureSlot,
  outputPath: string,
  contentsFor: (digest: Buffer) => Promise<Buffer>,
  append = false,
): Promise<{ sha256: string; size: number }> {
  const bytes = update.bytes;
  const slotAt = update.offsets.get(slot.ref.num)!;
  const contentsStart = slotAt + slot.contentsStart;
  const contentsEnd = slotAt + slot.contentsEnd;
  const byteRange = [
    0,
    file.size + contentsStart,
    file.size + contentsEnd,
    bytes.length - contentsEnd,
  ];
  const byteRangeText = byteRange.map(formatNumber).join(' ');
  if (byteRangeText.length > BYTE_RANGE_WIDTH)
    throw new Error('file too large for the /ByteRange slot');
  bytes.write(byteRangeText.padEnd(BYTE_RANGE_WIDTH, ' '), slotAt + slot.byteRangeAt, 'latin1');

  const out = await open(outputPath, append ? 'a' : 'w');
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(file.size, 1)));
    for (let pos = 0; pos < file.size; ) {
      const n = file.readInto(chunk, pos);
      if (n === 0) throw new Error('the source PDF shrank while being signed');
      const piece = chunk.subarray(0, n);
      hash.update(piece);
      if (!append) await out.write(piece, 0, n);
      pos += n;
    }
    hash.update(bytes.subarray(0, contentsStart));
    const whole = hash.copy();
    hash.update(bytes.subarray(contentsEnd));
    const cms = await contentsFor(hash.digest());
    const hex = cms.toString('hex');
    if (hex.length > contentsEnd - contentsStart - 2)
      throw new Error('the CMS signature outgrew its placeholder');
    bytes.write(hex, contentsStart + 1, 'latin1');
    whole.update(bytes.subarray(contentsStart));
    await out.write(bytes);
    return { sha256: whole.digest('hex'), size: file.size + bytes.length };
  } finally {
    await out.close();
  }
}
