import { type X509Certificate, randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import {
  CmsFormatError,
  OIDS,
  parseDer,
  readTimestampToken,
  toBuffer,
  type TimestampInfo,
} from './cms-parse.ts';

/**
 * Clients of the trust services a long-term signature needs: an RFC 3161 time-stamping
 * authority, OCSP responders and CRL distribution points. Every answer is checked before
 * use; an unreachable service or an answer that does not check out is a TrustServiceError,
 * which the finalize job treats as an ordinary (retried) sealing failure.
 */

export class TrustServiceError extends Error {
  override name = 'TrustServiceError';
}

export interface TsaConfig {
  url: string;
  username?: string | undefined;
  password?: string | undefined;
}

const TIMEOUT_MS = 15_000;
const MAX_REPLY_BYTES = 1 << 20;
const MAX_CRL_BYTES = 10 << 20;
const SHA256 = '2.16.840.1.101.3.4.2.1';

async function exchange(
  url: string,
  init: RequestInit,
  limit: number,
  what: string,
): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new TrustServiceError(
      `${what} unreachable (${origin(url)}): ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
    );
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new TrustServiceError(`${what} answered HTTP ${res.status} (${origin(url)})`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > limit)
      throw new TrustServiceError(`${what} answer larger than ${limit} bytes (${origin(url)})`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** Scheme, host and path only: a URL in an error never carries credentials or a query. */
function origin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'invalid URL';
  }
}

/** Asks the TSA to stamp a SHA-256 `digest` (a nonce, its certificate requested); returns the checked token. */
export async function requestTimestamp(
  tsa: TsaConfig,
  digest: Buffer,
): Promise<{ der: Buffer; info: TimestampInfo }> {
  const nonce = randomBytes(8);
  nonce[0] = (nonce[0] & 0x7f) | 0x01; // positive, and minimal as DER wants
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: digest }),
    }),
    nonce: new asn1js.Integer({ valueHex: nonce }),
    certReq: true,
  });
  const headers: Record<string, string> = { 'content-type': 'application/timestamp-query' };
  if (tsa.username !== undefined || tsa.password !== undefined) {
    headers.authorization = `Basic ${Buffer.from(`${tsa.username ?? ''}:${tsa.password ?? ''}`).toString('base64')}`;
  }
  const body = toBuffer(request.toSchema().toBER(false));
  const reply = await exchange(
    tsa.url,
    { method: 'POST', headers, body: new Uint8Array(body) },
    MAX_REPLY_BYTES,
    'the time-stamping authority',
  );
  try {
    const response = parseDer(
      reply,
      (schema) => new pkijs.TimeStampResp({ schema }),
      'timestamp reply',
    );
    if (response.status.status > 1 || !response.timeStampToken) {
      const text = (response.status.statusStrings ?? [])
        .map((t) => t.valueBlock.value)
        .join('; ')
        .slice(0, 200);
      throw new TrustServiceError(
        `the time-stamping authority refused the request (status ${response.status.status}${text ? `: ${text}` : ''})`,
      );
    }
    const der = toBuffer(response.timeStampToken.toSchema().toBER(false));
    const info = readTimestampToken(der, (alg) => (alg === 'sha256' ? digest : Buffer.alloc(0)));
    const tst = parseDer(
      toBuffer(info.token.encapContentInfo.eContent!.getValue()),
      (schema) => new pkijs.TSTInfo({ schema }),
      'TSTInfo',
    );
    if (!tst.nonce || !toBuffer(tst.nonce.valueBlock.valueHexView).equals(nonce)) {
      throw new TrustServiceError('the time-stamping authority answered without our nonce');
    }
    if (!info.valid || !info.signer)
      throw new TrustServiceError('the timestamp token does not verify');
    return { der, info };
  } catch (err) {
    if (err instanceof CmsFormatError)
      throw new TrustServiceError(
        `the time-stamping authority's answer is unreadable (${err.message})`,
      );
    throw err;
  }
}

const asPkijs = (cert: X509Certificate) =>
  parseDer(cert.raw, (schema) => new pkijs.Certificate({ schema }), 'certificate');

function extension(cert: pkijs.Certificate, oid: string): unknown {
  return cert.extensions?.find((e) => e.extnID === oid)?.parsedValue;
}

/** The OCSP responder URLs (AIA) and CRL distribution points a certificate names. */
export function revocationSources(cert: X509Certificate): { ocsp: string[]; crl: string[] } {
  const parsed = asPkijs(cert);
  const ocsp: string[] = [];
  const crl: string[] = [];
  const aia = extension(parsed, OIDS.authorityInfoAccess);
  if (aia instanceof pkijs.InfoAccess) {
    for (const d of aia.accessDescriptions) {
      if (d.accessMethod === OIDS.ocspAccess && d.accessLocation.type === 6)
        ocsp.push(String(d.accessLocation.value));
    }
  }
  const cdp = extension(parsed, OIDS.crlDistributionPoints);
  if (cdp instanceof pkijs.CRLDistributionPoints) {
    for (const point of cdp.distributionPoints) {
      const names = Array.isArray(point.distributionPoint) ? point.distributionPoint : [];
      for (const n of names) if (n.type === 6) crl.push(String(n.value));
    }
  }
  return { ocsp: ocsp.filter(isHttp), crl: crl.filter(isHttp) };
}

const isHttp = (url: string) => /^https?:\/\//i.test(url);

/** A checked OCSP response (DER, as the DSS stores it) saying `cert` is good, plus the responder's certificates. */
export async function fetchOcsp(
  url: string,
  cert: X509Certificate,
  issuer: X509Certificate,
): Promise<{ der: Buffer; certs: Buffer[] }> {
  const leaf = asPkijs(cert);
  const issuerCert = asPkijs(issuer);
  const request = new pkijs.OCSPRequest();
  await request.createForCertificate(leaf, {
    hashAlgorithm: 'SHA-1',
    issuerCertificate: issuerCert,
  });
  const body = toBuffer(request.toSchema(true).toBER(false));
  const der = await exchange(
    url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: new Uint8Array(body),
    },
    MAX_REPLY_BYTES,
    'the OCSP responder',
  );
  let basic: pkijs.BasicOCSPResponse;
  try {
    const response = parseDer(der, (schema) => new pkijs.OCSPResponse({ schema }), 'OCSP response');
    if (
      response.responseStatus.valueBlock.valueDec !== 0 ||
      response.responseBytes?.responseType !== OIDS.ocspBasic
    ) {
      throw new TrustServiceError(
        `the OCSP responder refused the request (status ${response.responseStatus.valueBlock.valueDec})`,
      );
    }
    basic = parseDer(
      toBuffer(response.responseBytes.response.valueBlock.valueHexView),
      (schema) => new pkijs.BasicOCSPResponse({ schema }),
      'BasicOCSPResponse',
    );
  } catch (err) {
    if (err instanceof CmsFormatError)
      throw new TrustServiceError(`the OCSP responder's answer is unreadable (${err.message})`);
    throw err;
  }
  let ok = false;
  try {
    ok = await basic.verify({ trustedCerts: [issuerCert] });
  } catch {
    ok = false;
  }
  if (!ok)
    throw new TrustServiceError('the OCSP response does not verify against the certificate issuer');
  const status = await basic.getCertificateStatus(leaf, issuerCert);
  if (!status.isForCertificate)
    throw new TrustServiceError('the OCSP response is not about the certificate asked for');
  if (status.status !== 0)
    throw new TrustServiceError(
      `the OCSP responder reports the certificate ${status.status === 1 ? 'revoked' : 'unknown'}`,
    );
  const certs = (basic.certs ?? []).map((c) => toBuffer(c.toSchema().toBER(false)));
  return { der, certs };
}

/** The bytes at a CRL distribution point (checked by `fetchCrl`). */
export function downloadCrl(url: string): Promise<Buffer> {
  return exchange(url, { method: 'GET' }, MAX_CRL_BYTES, 'the CRL distribution point');
}

/** A checked CRL (DER) from `url` (or `fetched` earlier from it), signed by `issuer`, current, not listing `cert`. */
export async function fetchCrl(
  url: string,
  cert: X509Certificate,
  issuer: X509Certificate,
  fetched?: Buffer,
): Promise<Buffer> {
  const der = fetched ?? (await downloadCrl(url));
  let crl: pkijs.CertificateRevocationList;
  try {
    crl = parseDer(der, (schema) => new pkijs.CertificateRevocationList({ schema }), 'CRL');
  } catch (err) {
    throw new TrustServiceError(`the CRL is unreadable (${(err as Error).message})`);
  }
  let ok = false;
  try {
    ok = await crl.verify({ issuerCertificate: asPkijs(issuer) });
  } catch {
    ok = false;
  }
  if (!ok) throw new TrustServiceError('the CRL does not verify against the certificate issuer');
  if (crl.nextUpdate && crl.nextUpdate.value.getTime() < Date.now())
    throw new TrustServiceError('the CRL is out of date');
  const serial = cert.serialNumber.toLowerCase().replace(/^0+/, '');
  const listed = (crl.revokedCertificates ?? []).some(
    (r) =>
      toBuffer(r.userCertificate.valueBlock.valueHexView).toString('hex').replace(/^0+/, '') ===
      serial,
  );
  if (listed) throw new TrustServiceError('the CRL lists the certificate as revoked');
  return der;
}
