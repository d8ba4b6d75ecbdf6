import { createHash, sign } from 'node:crypto';
import type { SigningCertificate } from './certificate.ts';
import {
  contextTag,
  integer,
  issuerAndSerial,
  nullValue,
  octetString,
  oid,
  sequence,
  setOf,
} from './der.ts';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;

const attribute = (type: string, value: Buffer) => sequence(oid(type), setOf(value));

/**
 * A detached CMS SignedData (RFC 5652) over a SHA-256 digest, as PAdES B-B wants it
 * (ETSI EN 319 142-1): signed attributes content-type, message-digest and
 * signing-certificate-v2, the certificate chain embedded. There is deliberately no
 * signing-time attribute: PAdES baseline forbids it and puts the claimed time in the
 * signature dictionary's /M instead.
 *
 * The signature itself comes from node:crypto (native RSA/ECDSA), so signing costs well
 * under a millisecond; an RSA signature is deterministic, so the same input gives the
 * same file.
 */
export async function buildCms(
  digest: Buffer,
  cert: SigningCertificate,
  /** Unsigned attributes made from the signature value (a signature timestamp: PAdES B-T), each one Attribute's DER. */
  unsigned?: (signature: Buffer) => Promise<Buffer[]>,
): Promise<Buffer> {
  const leaf = cert.chain[0];
  const { issuer, serial } = issuerAndSerial(leaf);
  const sha256 = sequence(oid(OID.sha256));

  // ESSCertIDv2 with the default hash (SHA-256, so omitted) and the issuer/serial that pins it.
  const essCertId = sequence(
    octetString(createHash('sha256').update(leaf).digest()),
    sequence(sequence(contextTag(4, issuer)), serial),
  );
  const attributes = [
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, octetString(digest)),
    attribute(OID.signingCertificateV2, sequence(sequence(essCertId))),
  ];
  // The signature covers the attributes encoded as a SET; the SignerInfo stores them [0] IMPLICIT.
  const signedAttrs = setOf(...attributes);
  const keyType = cert.privateKey.asymmetricKeyType;
  const signatureAlgorithm =
    keyType === 'rsa'
      ? sequence(oid(OID.rsaEncryption), nullValue())
      : sequence(oid(OID.ecdsaWithSha256));
  const signature = sign('sha256', signedAttrs, cert.privateKey);
  const unsignedAttrs = unsigned ? await unsigned(signature) : [];

  const signerInfo = sequence(
    integer(1),
    sequence(issuer, serial),
    sha256,
    contextTag(0, signedAttrs.subarray(signedAttrs.length - contentLength(signedAttrs))),
    signatureAlgorithm,
    octetString(signature),
    // [1] IMPLICIT SET OF Attribute
    ...(unsignedAttrs.length > 0
      ? [contextTag(1, ...[...unsignedAttrs].sort(Buffer.compare))]
      : []),
  );
  const signedData = sequence(
    integer(1),
    setOf(sha256),
    sequence(oid(OID.data)),
    contextTag(0, ...cert.chain),
    setOf(signerInfo),
  );
  return sequence(oid(OID.signedData), contextTag(0, signedData));
}

/** Length of a DER value's content (its bytes after the tag and length). */
function contentLength(der: Buffer): number {
  const first = der[1];
  const header = first & 0x80 ? 2 + (first & 0x7f) : 2;
  return der.length - header;
}
