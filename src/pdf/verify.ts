import { createHash } from 'node:crypto';
import type * as pkijs from 'pkijs';
import {
  OIDS,
  attributeValue,
  commonName,
  digestName,
  parseSignedData,
  readTimestampToken,
  signerCertificate,
  signerInfoValid,
  toBuffer,
} from './cms-parse.ts';
import { readDss, type Dss } from './dss-read.ts';
import { type CertificateFacts, certificateFacts, claimedTime } from './signature-facts.ts';
import type { PadesLevel } from './long-term.ts';
import { type RangeDigest, rangeDigests } from './range-digests.ts';
import { PdfFile } from './reader.ts';
import {
  PdfRaw,
  PdfRef,
  isDict,
  isName,
  serialize,
  type PdfDict,
  type PdfValue,
} from './syntax.ts';

/**
 * Describes every signature of a PDF (Signet's or anyone's): whether its bytes are intact,
 * what it covers, its certificate, its signature timestamp, the PAdES level it reaches, and
 * whether anything but validation data was added after the last signature. Reads through the
 * bounded reader; never trusts a signature's claims without checking them.
 */

export interface SignatureReport {
  valid: boolean;
  coversWholeDocument: boolean;
  level: PadesLevel | null;
  signedAt: string | null;
  certificate: CertificateFacts | null;
  timestamp: { time: string; authority: string; valid: boolean } | null;
  revocationEmbedded: boolean;
}

export interface VerificationReport {
  signatures: SignatureReport[];
  modifiedAfterLastSignature: boolean;
}

const MAX_SIGNATURES = 50;
const MAX_FIELDS = 5_000;

interface FoundSignature {
  dict: PdfDict;
  byteRange: number[] | null;
  contents: Buffer | null;
}

export function verifyPdf(path: string): VerificationReport {
  const file = PdfFile.open(path);
  try {
    const found = findSignatures(file);
    const dss = readDss(file);
    const digest = rangeDigests(file);
    const stamps: Array<{ end: number; valid: boolean }> = [];
    const reports: Array<{ end: number; report: SignatureReport }> = [];
    for (const sig of found) {
      const end = sig.byteRange ? sig.byteRange[2] + sig.byteRange[3] : 0;
      if (isName(sig.dict.get('SubFilter'), 'ETSI.RFC3161')) {
        stamps.push({ end, valid: documentTimestampValid(sig, digest) });
      } else {
        reports.push({ end, report: describe(file, sig, dss, digest) });
      }
    }
    for (const { end, report } of reports) {
      if (report.level === 'B-LT' && stamps.some((s) => s.valid && s.end > end))
        report.level = 'B-LTA';
    }
    const ends = [...reports.map((r) => r.end), ...stamps.map((s) => s.end)];
    const lastEnd = ends.length > 0 ? Math.max(...ends) : 0;
    return {
      signatures: reports.map((r) => r.report),
      modifiedAfterLastSignature:
        lastEnd > 0 && lastEnd < file.size && changedAfter(path, file, lastEnd),
    };
  } finally {
    file.close();
  }
}

/** The token of the newest document timestamp (the one covering the most bytes), or null. */
export function lastDocumentTimestamp(file: PdfFile): Buffer | null {
  let best: FoundSignature | null = null;
  for (const sig of findSignatures(file)) {
    if (!isName(sig.dict.get('SubFilter'), 'ETSI.RFC3161') || !sig.byteRange || !sig.contents)
      continue;
    if (!best || sig.byteRange[2] + sig.byteRange[3] > best.byteRange![2] + best.byteRange![3])
      best = sig;
  }
  return best?.contents ?? null;
}

/** The signature dictionaries of the AcroForm's signature fields (kids included), bounded. */
function findSignatures(file: PdfFile): FoundSignature[] {
  const root = file.resolve(file.trailer.get('Root'));
  const acroForm = isDict(root) ? file.resolve(root.get('AcroForm')) : undefined;
  const fields = isDict(acroForm) ? file.resolve(acroForm.get('Fields')) : undefined;
  const out: FoundSignature[] = [];
  const seen = new Set<number>();
  let visited = 0;
  const walk = (items: PdfValue | undefined, depth: number, inheritedSig: boolean) => {
    if (!Array.isArray(items) || depth > 10) return;
    for (const item of items) {
      if (++visited > MAX_FIELDS || out.length >= MAX_SIGNATURES) return;
      if (item instanceof PdfRef) {
        if (seen.has(item.num)) continue;
        seen.add(item.num);
      }
      const field = file.resolve(item);
      if (!isDict(field)) continue;
      const isSig = field.has('FT') ? isName(field.get('FT'), 'Sig') : inheritedSig;
      const value = file.resolve(field.get('V'));
      if (isSig && isDict(value) && value.has('ByteRange')) out.push(readSignature(file, value));
      walk(file.resolve(field.get('Kids')), depth + 1, isSig);
    }
  };
  walk(fields, 0, false);
  return out;
}

function readSignature(file: PdfFile, dict: PdfDict): FoundSignature {
  const range = file.resolve(dict.get('ByteRange'));
  const byteRange =
    Array.isArray(range) &&
    range.length === 4 &&
    range.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)
      ? (range as number[])
      : null;
  const okRange =
    byteRange &&
    byteRange[0] === 0 &&
    byteRange[1] <= byteRange[2] &&
    byteRange[2] + byteRange[3] <= file.size;
  const raw = file.resolve(dict.get('Contents'));
  const hex =
    raw instanceof PdfRaw && /^<[0-9a-fA-F\s]*>$/.test(raw.text)
      ? raw.text.slice(1, -1).replace(/\s/g, '')
      : null;
  return {
    dict,
    byteRange: okRange ? byteRange : null,
    contents: hex ? Buffer.from(hex, 'hex') : null,
  };
}

function documentTimestampValid(sig: FoundSignature, digest: RangeDigest): boolean {
  if (!sig.byteRange || !sig.contents) return false;
  try {
    return readTimestampToken(sig.contents, (alg) => digest(sig.byteRange!, alg)).valid;
  } catch {
    return false;
  }
}

function describe(
  file: PdfFile,
  sig: FoundSignature,
  dss: Dss,
  digest: RangeDigest,
): SignatureReport {
  const claimed = claimedTime(sig.dict);
  const report: SignatureReport = {
    valid: false,
    coversWholeDocument: !!sig.byteRange && sig.byteRange[2] + sig.byteRange[3] === file.size,
    level: null,
    signedAt: claimed,
    certificate: null,
    timestamp: null,
    revocationEmbedded: false,
  };
  if (!sig.byteRange || !sig.contents) return report;
  let sd: pkijs.SignedData;
  try {
    sd = parseSignedData(sig.contents);
  } catch {
    return report;
  }
  const cert = signerCertificate(sd);
  if (cert) report.certificate = certificateFacts(cert);
  try {
    report.valid = signerInfoValid(sd, digest(sig.byteRange, digestName(sd)));
  } catch {
    report.valid = false;
  }
  const si = sd.signerInfos[0];
  const token = attributeValue(si?.unsignedAttrs, OIDS.signatureTimeStampToken);
  if (token) {
    try {
      const signature = toBuffer(si.signature.valueBlock.valueHexView);
      const info = readTimestampToken(toBuffer(token.toBER(false)), (alg) =>
        createHash(alg).update(signature).digest(),
      );
      report.timestamp = {
        time: info.genTime.toISOString(),
        authority: info.signer ? commonName(info.signer.subject) : '',
        valid: info.valid,
      };
      if (info.valid) report.signedAt = info.genTime.toISOString();
    } catch {
      report.timestamp = { time: '', authority: '', valid: false };
    }
  }
  if (cert) report.revocationEmbedded = dss.covers(cert);
  const pades =
    isName(sig.dict.get('SubFilter'), 'ETSI.CAdES.detached') &&
    !!attributeValue(si?.signedAttrs, OIDS.signingCertificateV2);
  if (pades && report.valid) {
    report.level = 'B-B';
    if (report.timestamp?.valid) {
      report.level = 'B-T';
      // B-LT: the DSS holds the signer's certificate and its revocation data (or it names none).
      const needsRevocation = cert && !report.certificate?.selfSigned;
      if (cert && dss.hasCertificate(cert) && (!needsRevocation || report.revocationEmbedded))
        report.level = 'B-LT';
    }
  }
  return report;
}

/**
 * Whether the revisions after `end` change anything but validation data: every object of the
 * signed revision keeps its place, except the catalog, which may differ only by /DSS and
 * /Extensions (what PAdES B-LT adds).
 */
function changedAfter(path: string, latest: PdfFile, end: number): boolean {
  let signed: PdfFile;
  try {
    signed = PdfFile.open(path, end);
  } catch {
    return true;
  }
  try {
    const root = signed.trailer.get('Root');
    const rootNum = root instanceof PdfRef ? root.num : -1;
    if (
      !(latest.trailer.get('Root') instanceof PdfRef) ||
      (latest.trailer.get('Root') as PdfRef).num !== rootNum
    )
      return true;
    for (const num of signed.objectNumbers()) {
      if (signed.location(num) === latest.location(num)) continue;
      if (num !== rootNum) return true;
      const before = signed.get(num);
      const after = latest.get(num);
      if (!isDict(before) || !isDict(after)) return true;
      const strip = (d: PdfDict) =>
        serialize(new Map([...d].filter(([k]) => k !== 'DSS' && k !== 'Extensions')));
      if (strip(before) !== strip(after)) return true;
    }
    return false;
  } catch {
    return true;
  } finally {
    signed.close();
  }
}
