import type { X509Certificate } from 'node:crypto';
import { PdfRaw, type PdfDict } from './syntax.ts';

/** What a verification report says of a signing certificate. */
export interface CertificateFacts {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  selfSigned: boolean;
}

export function certificateFacts(cert: X509Certificate): CertificateFacts {
  return {
    subject: cert.subject.replace(/\n/g, ', '),
    issuer: cert.issuer.replace(/\n/g, ', '),
    serialNumber: cert.serialNumber.toLowerCase(),
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
    // Issued by itself: its issuer is its subject and its own key verifies it. Not checkIssued,
    // which also wants the issuer allowed to sign certificates (keyCertSign): a signing
    // certificate that signs only documents, as Signet's generated one, would never pass.
    selfSigned: cert.issuer === cert.subject && cert.verify(cert.publicKey),
  };
}

/** The signature dictionary's /M, as ISO 8601 (what the signer's clock claimed). */
export function claimedTime(dict: PdfDict): string | null {
  const m = dict.get('M');
  if (!(m instanceof PdfRaw)) return null;
  const match = /D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?/.exec(
    m.text,
  );
  if (!match) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', sign, oh = '00', om = '00'] =
    match;
  const offset = sign === '+' || sign === '-' ? `${sign}${oh}:${om}` : 'Z';
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
