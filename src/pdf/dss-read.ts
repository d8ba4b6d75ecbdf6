import { X509Certificate } from 'node:crypto';
import * as pkijs from 'pkijs';
import { OIDS, parseDer, toBuffer } from './cms-parse.ts';
import type { PdfFile } from './reader.ts';
import { PdfStream, isDict, type PdfValue } from './syntax.ts';

/** What a PDF's Document Security Store holds, as far as a verifier asks. */
export interface Dss {
  hasCertificate(cert: X509Certificate): boolean;
  /** An OCSP response about `cert` or a CRL from its issuer is embedded. */
  covers(cert: X509Certificate): boolean;
}

const MAX_ENTRIES = 500;

export function readDss(file: PdfFile): Dss {
  const root = file.resolve(file.trailer.get('Root'));
  const dss = isDict(root) ? file.resolve(root.get('DSS')) : undefined;
  const streams = (key: string): Buffer[] => {
    const list = isDict(dss) ? file.resolve(dss.get(key)) : undefined;
    if (!Array.isArray(list)) return [];
    const out: Buffer[] = [];
    for (const item of list.slice(0, MAX_ENTRIES) as PdfValue[]) {
      const stream = file.resolve(item);
      if (!(stream instanceof PdfStream)) continue;
      try {
        out.push(file.streamData(stream));
      } catch {
        // an unreadable entry proves nothing
      }
    }
    return out;
  };
  const certs = streams('Certs').flatMap((der) => {
    try {
      return [new X509Certificate(der)];
    } catch {
      return [];
    }
  });
  const ocspSerials = new Set<string>();
  for (const der of streams('OCSPs')) {
    try {
      const response = parseDer(der, (schema) => new pkijs.OCSPResponse({ schema }), 'OCSP');
      if (response.responseBytes?.responseType !== OIDS.ocspBasic) continue;
      const basic = parseDer(
        toBuffer(response.responseBytes.response.valueBlock.valueHexView),
        (schema) => new pkijs.BasicOCSPResponse({ schema }),
        'OCSP',
      );
      for (const single of basic.tbsResponseData.responses) {
        ocspSerials.add(
          toBuffer(single.certID.serialNumber.valueBlock.valueHexView)
            .toString('hex')
            .replace(/^0+/, ''),
        );
      }
    } catch {
      // skip
    }
  }
  const crlIssuers: pkijs.RelativeDistinguishedNames[] = [];
  for (const der of streams('CRLs')) {
    try {
      crlIssuers.push(
        parseDer(der, (schema) => new pkijs.CertificateRevocationList({ schema }), 'CRL').issuer,
      );
    } catch {
      // skip
    }
  }
  return {
    hasCertificate: (cert) => certs.some((c) => c.fingerprint256 === cert.fingerprint256),
    covers: (cert) => {
      if (ocspSerials.has(cert.serialNumber.toLowerCase().replace(/^0+/, ''))) return true;
      const issuer = parseDer(
        cert.raw,
        (schema) => new pkijs.Certificate({ schema }),
        'certificate',
      ).issuer;
      return crlIssuers.some((i) => i.isEqual(issuer));
    },
  };
}
