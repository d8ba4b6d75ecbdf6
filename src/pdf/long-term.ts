import { type X509Certificate, createHash } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { addToAcroForm, asArray, type Alloc } from './acroform.ts';
import { OIDS, toBuffer, type TimestampInfo } from './cms-parse.ts';
import { assembleUpdate, type UpdateObject } from './incremental.ts';
import { readDocumentTree } from './pages.ts';
import { PdfFile } from './reader.ts';
import { docTimestampSlot, writeSigned } from './sign.ts';
import {
  PdfRef,
  PdfStream,
  dict,
  isDict,
  name,
  pdfText,
  serializeIndirect,
  type PdfDict,
  type PdfValue,
} from './syntax.ts';
import {
  TrustServiceError,
  downloadCrl,
  fetchCrl,
  fetchOcsp,
  requestTimestamp,
  revocationSources,
  type TsaConfig,
} from './trust-client.ts';

/**
 * PAdES baseline levels above B-B (ETSI EN 319 142-1): the signature timestamp (B-T), the
 * validation data in a DSS (B-LT), the document timestamp (B-LTA). Each later level is an
 * incremental update appended to the signed file, so the signature's bytes never move.
 */

export const PADES_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const;
export type PadesLevel = (typeof PADES_LEVELS)[number];
export const levelAtLeast = (level: PadesLevel, min: PadesLevel) =>
  PADES_LEVELS.indexOf(level) >= PADES_LEVELS.indexOf(min);

export interface LongTermConfig {
  level: PadesLevel;
  tsa: TsaConfig | null;
}

/** Room kept in /Contents for a timestamp token (TSA certificate chains run to a few kilobytes). */
export const TIMESTAMP_RESERVE = 16_384;

/** The unsigned signature-time-stamp attribute for a signature value (RFC 3161 appendix A), and the token's facts. */
export async function signatureTimestamp(
  tsa: TsaConfig,
  signature: Buffer,
): Promise<{ attribute: Buffer; info: TimestampInfo }> {
  const { der, info } = await requestTimestamp(
    tsa,
    createHash('sha256').update(signature).digest(),
  );
  const token = asn1js.fromBER(new Uint8Array(der));
  const attribute = new pkijs.Attribute({
    type: OIDS.signatureTimeStampToken,
    values: [token.result],
  });
  return { attribute: toBuffer(attribute.toSchema().toBER(false)), info };
}

/** Counter-style allocator for an update after our own: new objects start past the file's highest number. */
function allocator(file: PdfFile): Alloc {
  let next = file.nextObjectNumber;
  return { alloc: () => new PdfRef(next++, 0) };
}

const sameCert = (a: X509Certificate, b: X509Certificate) => a.fingerprint256 === b.fingerprint256;

interface ValidationData {
  certs: Buffer[];
  ocsps: Buffer[];
  crls: Buffer[];
}

/**
 * Revocation data for every certificate of `certs` that names a source (OCSP first, then the
 * CRL), checked against its issuer found in `certs`. A certificate that names a source none
 * of which answers well makes the whole level unreachable: TrustServiceError.
 */
export async function collectValidationData(certs: X509Certificate[]): Promise<ValidationData> {
  const unique = certs.filter((c, i) => certs.findIndex((d) => sameCert(c, d)) === i);
  // One CA's CRL serves every certificate it issued: downloaded once per URL.
  const downloads = new Map<string, Promise<Buffer>>();
  const crlFrom = (url: string) => {
    let download = downloads.get(url);
    if (!download) {
      download = downloadCrl(url);
      downloads.set(url, download);
    }
    return download;
  };
  // The certificates' services are asked at the same time; each answer is checked as before.
  const answers = await Promise.all(
    unique.map(async (cert): Promise<{ ocsp?: { der: Buffer; certs: Buffer[] }; crl?: Buffer }> => {
      if (cert.checkIssued(cert)) return {}; // a root vouches for itself
      const sources = revocationSources(cert);
      if (sources.ocsp.length === 0 && sources.crl.length === 0) return {};
      const issuer = unique.find(
        (c) => !sameCert(c, cert) && cert.checkIssued(c) && cert.verify(c.publicKey),
      );
      if (!issuer)
        throw new TrustServiceError(
          `the issuer of "${cert.subject.replace(/\n/g, ', ')}" is not in the chain, so its revocation cannot be checked`,
        );
      let lastError: Error | null = null;
      for (const url of sources.ocsp) {
        try {
          return { ocsp: await fetchOcsp(url, cert, issuer) };
        } catch (err) {
          lastError = err as Error;
        }
      }
      for (const url of sources.crl) {
        try {
          return { crl: await fetchCrl(url, cert, issuer, await crlFrom(url)) };
        } catch (err) {
          lastError = err as Error;
        }
      }
      throw lastError ?? new TrustServiceError('no revocation source answered');
    }),
  );
  const out: ValidationData = { certs: unique.map((c) => c.raw), ocsps: [], crls: [] };
  for (const answer of answers) {
    if (answer.ocsp) {
      out.ocsps.push(answer.ocsp.der);
      for (const der of answer.ocsp.certs)
        if (!out.certs.some((c) => c.equals(der))) out.certs.push(der);
    }
    if (answer.crl && !out.crls.some((c) => c.equals(answer.crl!))) out.crls.push(answer.crl);
  }
  return out;
}

/**
 * Appends a DSS (ISO 32000-2 §12.8.4.3) holding `data`, merged into the DSS the file already
 * has (a renewal adds to it), and the catalog pointing at it.
 */
export async function appendDss(path: string, data: ValidationData): Promise<void> {
  const file = PdfFile.open(path);
  let bytes: Buffer;
  try {
    const tree = readDocumentTree(file);
    const factory = allocator(file);
    const objects: UpdateObject[] = [];
    const put = (ref: PdfRef, value: PdfValue) =>
      objects.push({ ref, bytes: serializeIndirect(ref, value) });
    const existing = file.resolve(tree.catalog.get('DSS'));
    const dss: PdfDict = isDict(existing) ? new Map(existing) : dict({ Type: name('DSS') });
    const known = new Map<string, Buffer[]>();
    const add = (key: 'Certs' | 'OCSPs' | 'CRLs', items: Buffer[]) => {
      const refs = asArray(file.resolve(dss.get(key)));
      const seen = known.get(key) ?? [];
      for (const der of items) {
        if (seen.some((d) => d.equals(der))) continue;
        seen.push(der);
        const ref = factory.alloc();
        put(ref, new PdfStream(new Map(), der));
        refs.push(ref);
      }
      known.set(key, seen);
      if (refs.length > 0) dss.set(key, refs);
    };
    add('Certs', data.certs);
    add('OCSPs', data.ocsps);
    add('CRLs', data.crls);
    const dssRef = factory.alloc();
    put(dssRef, dss);
    const catalog = new Map(tree.catalog);
    catalog.set('DSS', dssRef);
    // Adobe's extension level 5 of PDF 1.7 introduced the DSS.
    catalog.set(
      'Extensions',
      dict({ ADBE: dict({ BaseVersion: name('1.7'), ExtensionLevel: 5 }) }),
    );
    put(tree.catalogRef, catalog);
    bytes = assembleUpdate(file, objects, {
      id: file.trailer.get('ID') ?? [],
      allocXrefStream: () => factory.alloc(),
    }).bytes;
  } finally {
    file.close();
  }
  await appendFile(path, bytes);
}

/**
 * Appends a document timestamp (ETSI.RFC3161 /DocTimeStamp) over the whole file as it stands:
 * an invisible signature field on the last page whose /Contents is the TSA's token.
 * Returns the token's facts and the file's new SHA-256 and size.
 */
export async function appendDocumentTimestamp(
  path: string,
  tsa: TsaConfig,
): Promise<{ info: TimestampInfo; sha256: string; size: number }> {
  const file = PdfFile.open(path);
  try {
    const tree = readDocumentTree(file);
    const factory = allocator(file);
    const objects: UpdateObject[] = [];
    const put = (ref: PdfRef, value: PdfValue) =>
      objects.push({ ref, bytes: serializeIndirect(ref, value) });
    const page = tree.pages[tree.pages.length - 1];
    const widgetRef = factory.alloc();
    const sigRef = factory.alloc();
    const pageDict = new Map(page.dict);
    pageDict.set('Annots', [...asArray(file.resolve(page.dict.get('Annots'))), widgetRef]);
    put(page.ref, pageDict);
    addToAcroForm(file, tree, widgetRef, factory, put);
    put(
      widgetRef,
      dict({
        Type: name('Annot'),
        Subtype: name('Widget'),
        FT: name('Sig'),
        T: pdfText(`Signet document timestamp ${sigRef.num}`),
        V: sigRef,
        F: 132,
        Rect: [0, 0, 0, 0],
        P: page.ref,
      }),
    );
    const slot = docTimestampSlot(sigRef, TIMESTAMP_RESERVE);
    objects.push({ ref: sigRef, bytes: slot.bytes });
    const update = assembleUpdate(file, objects, {
      id: file.trailer.get('ID') ?? [],
      allocXrefStream: () => factory.alloc(),
    });
    let info!: TimestampInfo;
    const written = await writeSigned(
      file,
      update,
      slot,
      path,
      async (digest) => {
        const stamp = await requestTimestamp(tsa, digest);
        info = stamp.info;
        return stamp.der;
      },
      true,
    );
    return { info, ...written };
  } finally {
    file.close();
  }
}

/** When the certificate that signed a timestamp stops being valid. */
export function timestampExpiry(info: TimestampInfo): string | null {
  return info.signer ? new Date(info.signer.validTo).toISOString() : null;
}
