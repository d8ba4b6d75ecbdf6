import { X509Certificate, createHash, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/**
 * Reading CMS SignedData (a PDF signature, an RFC 3161 timestamp token) with pkijs, and
 * checking a signer's signature with node:crypto. pkijs would verify too, but it wants the
 * signed content whole in memory; here the caller hashes the content itself (a PDF's byte
 * ranges stream through a hash) and passes only the digest.
 */

export const OIDS = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  messageDigest: '1.2.840.113549.1.9.4',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  ocspAccess: '1.3.6.1.5.5.7.48.1',
  crlDistributionPoints: '2.5.29.31',
} as const;

const DIGESTS: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

export class CmsFormatError extends Error {
  override name = 'CmsFormatError';
}

export const toBuffer = (b: ArrayBuffer | ArrayBufferView) =>
  ArrayBuffer.isView(b) ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : Buffer.from(b);
const toArrayBuffer = (b: Buffer) =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** Parses DER (or BER) into a pkijs structure, or throws CmsFormatError. */
export function parseDer<T>(der: Buffer, make: (schema: asn1js.AsnType) => T, what: string): T {
  const asn = asn1js.fromBER(toArrayBuffer(der));
  if (asn.offset === -1) throw new CmsFormatError(`${what}: not DER`);
  try {
    return make(asn.result);
  } catch (err) {
    throw new CmsFormatError(`${what}: ${(err as Error).message}`);
  }
}

/** A ContentInfo holding SignedData (trailing zero padding, as in a PDF /Contents, is ignored). */
export function parseSignedData(der: Buffer): pkijs.SignedData {
  const info = parseDer(der, (schema) => new pkijs.ContentInfo({ schema }), 'CMS');
  if (info.contentType !== OIDS.signedData) throw new CmsFormatError('CMS: not SignedData');
  return parseDer(
    toBuffer(info.content.toBER(false)),
    (schema) => new pkijs.SignedData({ schema }),
    'SignedData',
  );
}

function certificatesOf(sd: pkijs.SignedData): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const c of sd.certificates ?? []) {
    if (c instanceof pkijs.Certificate)
      out.push(new X509Certificate(toBuffer(c.toSchema().toBER(false))));
  }
  return out;
}

export function digestName(sd: pkijs.SignedData): string {
  const oid = sd.signerInfos[0]?.digestAlgorithm.algorithmId;
  const name = oid ? DIGESTS[oid] : undefined;
  if (!name) throw new CmsFormatError(`unsupported digest algorithm ${oid ?? '(none)'}`);
  return name;
}

export function attributeValue(
  attrs: pkijs.SignedAndUnsignedAttributes | undefined,
  type: string,
): asn1js.AsnType | undefined {
  return attrs?.attributes.find((a) => a.type === type)?.values[0] as asn1js.AsnType | undefined;
}

/** The certificate named by the first SignerInfo's issuer and serial number. */
export function signerCertificate(sd: pkijs.SignedData): X509Certificate | null {
  const sid = sd.signerInfos[0]?.sid;
  if (!(sid instanceof pkijs.IssuerAndSerialNumber)) return null;
  for (const c of sd.certificates ?? []) {
    if (
      c instanceof pkijs.Certificate &&
      c.issuer.isEqual(sid.issuer) &&
      c.serialNumber.isEqual(sid.serialNumber)
    ) {
      return new X509Certificate(toBuffer(c.toSchema().toBER(false)));
    }
  }
  return null;
}

/**
 * Whether the first SignerInfo signs `contentDigest` (the digest of the signed content with
 * the signer's digest algorithm): its message-digest attribute equals it and the signature
 * over the signed attributes verifies with the signer certificate's key.
 */
export function signerInfoValid(sd: pkijs.SignedData, contentDigest: Buffer): boolean {
  const si = sd.signerInfos[0];
  const cert = signerCertificate(sd);
  if (!si || !cert || !si.signedAttrs) return false;
  const md = attributeValue(si.signedAttrs, OIDS.messageDigest);
  if (
    !(md instanceof asn1js.OctetString) ||
    !toBuffer(md.valueBlock.valueHexView).equals(contentDigest)
  )
    return false;
  const encoded = Buffer.from(toBuffer(si.signedAttrs.encodedValue));
  encoded[0] = 0x31; // the signature covers the attributes as a SET, stored [0] IMPLICIT
  const signature = toBuffer(si.signature.valueBlock.valueHexView);
  const alg = si.signatureAlgorithm.algorithmId;
  try {
    if (alg === '1.2.840.113549.1.1.10') {
      return verify(
        digestName(sd),
        encoded,
        { key: cert.publicKey, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: -2 },
        signature,
      );
    }
    return verify(digestName(sd), encoded, cert.publicKey, signature);
  } catch {
    return false;
  }
}

export interface TimestampInfo {
  token: pkijs.SignedData;
  genTime: Date;
  /** The TSA certificate (signer of the token). */
  signer: X509Certificate | null;
  certificates: X509Certificate[];
  /** Token signature valid and its message imprint equal to the digest of `data`. */
  valid: boolean;
}

/** Reads an RFC 3161 token (ContentInfo) and checks it stamps `imprintOf` (the digest of the stamped data, SHA-2 family). */
export function readTimestampToken(
  tokenDer: Buffer,
  imprintOf: (algorithm: string) => Buffer,
): TimestampInfo {
  const token = parseSignedData(tokenDer);
  const content = token.encapContentInfo;
  if (content.eContentType !== OIDS.tstInfo || !content.eContent)
    throw new CmsFormatError('timestamp token without TSTInfo');
  const tstDer = toBuffer(content.eContent.getValue());
  const tst = parseDer(tstDer, (schema) => new pkijs.TSTInfo({ schema }), 'TSTInfo');
  const algorithm = DIGESTS[tst.messageImprint.hashAlgorithm.algorithmId];
  if (!algorithm) throw new CmsFormatError('timestamp with an unsupported imprint algorithm');
  const imprintMatches = toBuffer(tst.messageImprint.hashedMessage.valueBlock.valueHexView).equals(
    imprintOf(algorithm),
  );
  const tstDigest = createHash(digestName(token)).update(tstDer).digest();
  return {
    token,
    genTime: tst.genTime,
    signer: signerCertificate(token),
    certificates: certificatesOf(token),
    valid: imprintMatches && signerInfoValid(token, tstDigest),
  };
}

export function commonName(subject: string): string {
  return /(?:^|\n)CN=([^\n]+)/.exec(subject)?.[1] ?? subject.replace(/\n/g, ', ');
}
