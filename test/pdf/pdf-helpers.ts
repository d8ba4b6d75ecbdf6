import { X509Certificate, createHash, verify } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { PDFDocument, StandardFonts, degrees } from 'pdf-lib';
import forge from 'node-forge';
import sharp from 'sharp';
import type { FinalizeInput } from '../../src/pdf/finalize.ts';

/** A PDF made by pdf-lib, with a line of text per page; rotations and crop boxes per page. */
export async function makePdf(options: {
  pages: number;
  useObjectStreams: boolean;
  size?: [number, number];
  rotate?: (page: number) => number;
  /** x, y, width, height, as pdf-lib's setCropBox takes them. */
  cropBox?: (page: number) => [number, number, number, number] | undefined;
}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= options.pages; i++) {
    const page = doc.addPage(options.size ?? [595, 842]);
    page.drawText(`Original page ${i}`, { x: 60, y: page.getHeight() - 80, size: 16, font });
    const rotation = options.rotate?.(i);
    if (rotation) page.setRotation(degrees(rotation));
    const crop = options.cropBox?.(i);
    if (crop) page.setCropBox(...crop);
  }
  return Buffer.from(await doc.save({ useObjectStreams: options.useObjectStreams }));
}

/** A small opaque-ink-on-transparent PNG, as the signing page would send. */
export async function signaturePngDataUrl(): Promise<string> {
  const width = 120;
  const height = 40;
  const pixels = Buffer.alloc(width * height * 4);
  for (let x = 5; x < width - 5; x++) {
    const y = Math.round(height / 2 + Math.sin(x / 8) * 12);
    for (let dy = -1; dy <= 1; dy++) pixels.writeUInt32BE(0x102060ff, ((y + dy) * width + x) * 4);
  }
  const png = await sharp(pixels, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

export function sampleInput(
  sourcePath: string,
  documentHash: string,
  fields: FinalizeInput['fields'],
): FinalizeInput {
  return {
    sourcePath,
    document: {
      id: 'doc_0123456789',
      name: 'Mutual NDA 2025',
      documentHash,
      completedAt: '2025-03-04T10:20:30.000Z',
    },
    signers: [
      {
        name: 'Alice Martin',
        email: 'alice@example.test',
        role: 'signer',
        signedAt: '2025-03-04T09:00:00.000Z',
        ipAddress: '203.0.113.7',
        userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) ${'Chrome/124.0.0.0 '.repeat(12)}Safari/537.36`,
        geoCity: 'Lyon',
        geoCountry: 'FR',
      },
      {
        name: 'Bob Stone',
        email: 'bob@example.test',
        role: 'approver',
        signedAt: '2025-03-04T10:20:30.000Z',
        ipAddress: '198.51.100.23',
        userAgent: 'curl/8.5.0',
        geoCity: '',
        geoCountry: '',
      },
    ],
    fields,
  };
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export const hasPoppler =
  spawnSync('pdfsig', ['-v']).status === 0 && spawnSync('pdftotext', ['-v']).status === 0;

/** Runs a poppler tool; returns its stdout and stderr together (pdfsig prints to both). */
export function poppler(tool: string, args: string[]): { status: number | null; output: string } {
  const r = spawnSync(tool, args, { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

export interface SignatureCheck {
  byteRange: number[];
  coversAllButContents: boolean;
  subFilter: string;
  digestMatches: boolean;
  signatureValid: boolean;
  signingCertificateV2Matches: boolean;
  attributeOids: string[];
  certificateDer: Buffer;
}

/** Parses one DER value; /Contents is zero-padded after it, so the padding is cut off first. */
function node(buf: Buffer): forge.asn1.Asn1 {
  const long = buf[1] & 0x80 ? buf[1] & 0x7f : 0;
  let len = long ? 0 : buf[1];
  for (let i = 0; i < long; i++) len = len * 256 + buf[2 + i];
  return forge.asn1.fromDer(
    forge.util.createBuffer(buf.subarray(0, 2 + long + len).toString('binary')),
  );
}
const derOf = (n: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(n).getBytes(), 'binary');
const kids = (n: forge.asn1.Asn1) => n.value as forge.asn1.Asn1[];
const bytesOf = (n: forge.asn1.Asn1) => Buffer.from(n.value as string, 'binary');

/**
 * Verifies the last signature of a PDF without the code under test: parses /ByteRange,
 * recomputes the SHA-256 of the covered bytes, reads the CMS with forge's generic ASN.1
 * parser and checks its RSA/ECDSA signature over the signed attributes with node:crypto.
 */
export function checkSignature(pdf: Buffer): SignatureCheck {
  const text = pdf.toString('latin1');
  const at = text.lastIndexOf('/ByteRange');
  const m = /^\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text.slice(at));
  if (!m) throw new Error('no /ByteRange');
  const byteRange = m.slice(1).map(Number);
  const [a, b, c, d] = byteRange;
  const gap = text.slice(b, c);
  const coversAllButContents =
    a === 0 &&
    c + d === pdf.length &&
    /^<[0-9a-fA-F]+>$/.test(gap) &&
    /\/Contents\s*$/.test(text.slice(b - 20, b));
  const subFilter =
    /\/SubFilter\s*\/([A-Za-z0-9.]+)/.exec(text.slice(text.lastIndexOf('/Type/Sig')))?.[1] ?? '';

  const digest = createHash('sha256')
    .update(pdf.subarray(a, a + b))
    .update(pdf.subarray(c, c + d))
    .digest();
  const cms = node(Buffer.from(gap.slice(1, -1), 'hex'));
  const signedData = kids(kids(cms)[1])[0];
  const sdParts = kids(signedData);
  const certsNode = sdParts.find(
    (n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 0,
  )!;
  const certificateDer = derOf(kids(certsNode)[0]);
  const signerInfo = kids(sdParts[sdParts.length - 1])[0];
  const siParts = kids(signerInfo);
  const attrsNode = siParts.find(
    (n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 0,
  )!;
  const signature = bytesOf(siParts[siParts.length - 1]);
  const attrs = kids(attrsNode).map((attr) => ({
    oid: forge.asn1.derToOid(kids(attr)[0].value as string),
    value: kids(kids(attr)[1])[0],
  }));
  const messageDigest = attrs.find((x) => x.oid === '1.2.840.113549.1.9.4');
  const essCert = attrs.find((x) => x.oid === '1.2.840.113549.1.9.16.2.47');
  const essHash = essCert ? bytesOf(kids(kids(kids(essCert.value)[0])[0])[0]) : Buffer.alloc(0);
  // What was signed is the attributes' DER with the universal SET tag instead of [0].
  const signedAttrs = derOf(
    forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SET, true, kids(attrsNode)),
  );
  const publicKey = new X509Certificate(certificateDer).publicKey;
  return {
    byteRange,
    coversAllButContents,
    subFilter,
    digestMatches: !!messageDigest && bytesOf(messageDigest.value).equals(digest),
    signatureValid: verify('sha256', signedAttrs, publicKey, signature),
    signingCertificateV2Matches: essHash.equals(
      createHash('sha256').update(certificateDer).digest(),
    ),
    attributeOids: attrs.map((x) => x.oid),
    certificateDer,
  };
}
