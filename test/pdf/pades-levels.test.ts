import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadSigningCertificate, type SigningCertificate } from '../../src/pdf/certificate.ts';
import { finalizePdf } from '../../src/pdf/finalize.ts';
import type { PadesLevel } from '../../src/pdf/long-term.ts';
import { TrustServiceError } from '../../src/pdf/trust-client.ts';
import {
  NO_OPENSSL_REASON,
  hasOpenssl,
  startTrustServices,
  type TrustServices,
} from '../helpers/trust-services.ts';
import {
  hasQpdf,
  opensslCmsVerify,
  opensslTsVerify,
  pdfsigDump,
  qpdfDss,
  qpdfStream,
  run,
  sha256,
  signatureTimestampToken,
  signedBytes,
} from './independent-checks.ts';
import { hasPoppler, makePdf, sampleInput, sha256 as sha256hex } from './pdf-helpers.ts';

/**
 * Each PAdES level produced against a real local TSA, OCSP responder and CRL server, then
 * checked by pdfsig, openssl and qpdf.
 */
const ready = hasOpenssl && hasPoppler && hasQpdf;
if (!ready) console.warn(`${NO_OPENSSL_REASON} (also needs pdfsig and qpdf)`);

let dir: string;
let services: TrustServices;
let cert: SigningCertificate;
let source: string;
let original: Buffer;

beforeAll(async () => {
  if (!ready) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-pades-'));
  services = await startTrustServices();
  cert = await loadSigningCertificate({
    dataDir: dir,
    signingCertP12: services.signingP12,
    signingCertPassword: services.signingPassword,
    generatedCertPassword: 'a-test-password',
  });
  original = await makePdf({ pages: 2, useObjectStreams: true });
  source = path.join(dir, 'in.pdf');
  await writeFile(source, original);
});
afterAll(async () => {
  if (!ready) return;
  await services.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  if (!ready) return;
  services.mode.tsa = services.mode.ocsp = services.mode.crl = 'ok';
});

async function produce(level: PadesLevel, tsa = { url: services.tsaUrl }) {
  const levelDir = await mkdtemp(path.join(dir, `${level}-`));
  const output = path.join(levelDir, 'signed.pdf');
  const result = await finalizePdf(sampleInput(source, sha256hex(original), []), cert, output, {
    level,
    tsa,
  });
  const bytes = await readFile(output);
  expect(result.sha256).toBe(sha256hex(bytes));
  expect(result.size).toBe(bytes.length);
  const { report, dumps } = pdfsigDump(output);
  return { output, levelDir, result, report, dumps };
}

function expectSignatureValid(p: Awaited<ReturnType<typeof produce>>) {
  const first = p.report.split(/Signature #\d+:/)[1];
  expect(first).toContain('Signature Validation: Signature is Valid.');
  expect(first).toContain('Signer Certificate Common Name: Acme Signing Test');
  const cms = opensslCmsVerify(
    p.levelDir,
    p.dumps[0],
    signedBytes(p.output, p.report, 0),
    services.caPem,
  );
  expect(cms).toContain('CMS Verification successful');
}

function expectSignatureTimestamp(p: Awaited<ReturnType<typeof produce>>) {
  const found = signatureTimestampToken(p.levelDir, p.dumps[0]);
  expect(found).not.toBeNull();
  const out = opensslTsVerify(
    p.levelDir,
    found!.token,
    sha256(found!.signatureValue),
    services.caPem,
    services.tsaPem,
  );
  expect(out).toContain('Verification: OK');
}

describe.skipIf(!ready)('PAdES levels, checked by pdfsig, openssl and qpdf', () => {
  it('B-B: a valid CAdES signature over the whole file, no timestamp, no DSS, no TSA call', async () => {
    const before = services.counts.tsa;
    const p = await produce('B-B');
    expectSignatureValid(p);
    expect(p.report).toContain('Total document signed');
    expect(signatureTimestampToken(p.levelDir, p.dumps[0])).toBeNull();
    expect(qpdfDss(p.output)).toBeNull();
    expect(services.counts.tsa).toBe(before);
    expect(p.result).toMatchObject({ level: 'B-B', timestampExpiresAt: null });
  });

  it('B-T: the CMS carries a signature timestamp that openssl ts verifies against the test TSA', async () => {
    const p = await produce('B-T');
    expectSignatureValid(p);
    expect(p.report).toContain('Total document signed');
    expectSignatureTimestamp(p);
    // The check can fail: the same token does not stamp another value.
    const found = signatureTimestampToken(p.levelDir, p.dumps[0])!;
    expect(
      opensslTsVerify(
        p.levelDir,
        found.token,
        sha256(Buffer.from('other')),
        services.caPem,
        services.tsaPem,
      ),
    ).not.toContain('Verification: OK');
    expect(p.result.timestampExpiresAt).toBe(
      new Date(new X509Certificate(await readFile(services.tsaPem)).validTo).toISOString(),
    );
  });

  it('B-LT: a DSS after the signature with the chain, an OCSP response for the signer and the CRL for the TSA', async () => {
    const p = await produce('B-LT');
    expectSignatureValid(p);
    expectSignatureTimestamp(p);
    expect(p.report).toContain('Not total document signed'); // the DSS update follows the signature
    expect(run('qpdf', ['--check', p.output]).out).toContain('No syntax or stream encoding errors');
    const dss = qpdfDss(p.output)!;
    const certs = dss.Certs.map((n) => new X509Certificate(qpdfStream(p.output, n)).subject);
    expect(certs).toEqual(
      expect.arrayContaining([
        expect.stringContaining('CN=Acme Signing Test'),
        expect.stringContaining('CN=Signet Test Root CA'),
        expect.stringContaining('CN=Signet Test TSA'),
        expect.stringContaining('CN=Signet Test OCSP Responder'),
      ]),
    );
    expect(dss.OCSPs).toHaveLength(1);
    await writeFile(path.join(p.levelDir, 'dss.ocsp'), qpdfStream(p.output, dss.OCSPs[0]));
    await writeFile(path.join(p.levelDir, 'signing.pem'), cert.certificate.toString());
    const ocsp = run(
      'openssl',
      [
        'ocsp',
        '-respin',
        'dss.ocsp',
        '-issuer',
        services.caPem,
        '-cert',
        'signing.pem',
        '-CAfile',
        services.caPem,
      ],
      p.levelDir,
    ).out;
    expect(ocsp).toContain('Response verify OK');
    expect(ocsp).toContain('signing.pem: good');
    expect(dss.CRLs).toHaveLength(1);
    await writeFile(path.join(p.levelDir, 'dss.crl'), qpdfStream(p.output, dss.CRLs[0]));
    expect(
      run(
        'openssl',
        ['crl', '-inform', 'DER', '-in', 'dss.crl', '-CAfile', services.caPem, '-noout'],
        p.levelDir,
      ).out,
    ).toContain('verify OK');
  });

  it('B-LTA: a document timestamp over everything, its token verified by openssl ts over the bytes pdfsig names', async () => {
    const p = await produce('B-LTA');
    expectSignatureValid(p);
    expectSignatureTimestamp(p);
    expect(qpdfDss(p.output)!.OCSPs).toHaveLength(1);
    const second = p.report.split(/Signature #\d+:/)[2];
    expect(second).toContain('Signer Certificate Common Name: Signet Test TSA');
    expect(second).toContain('Total document signed');
    const covered = signedBytes(p.output, p.report, 1);
    expect(
      opensslTsVerify(p.levelDir, p.dumps[1], sha256(covered), services.caPem, services.tsaPem),
    ).toContain('Verification: OK');
    expect(run('qpdf', ['--check', p.output]).out).toContain('No syntax or stream encoding errors');
  });

  it('sends TSA_USERNAME and TSA_PASSWORD as HTTP Basic credentials', async () => {
    await produce('B-T', { url: services.tsaUrl, username: 'acme', password: 's3cret' } as never);
    expect(services.tsaAuthorizations.at(-1)).toBe(
      `Basic ${Buffer.from('acme:s3cret').toString('base64')}`,
    );
  });

  it('a TSA that is down, answers garbage, or an OCSP and CRL that are down are errors, never a lower level', async () => {
    services.mode.tsa = 'down';
    await expect(produce('B-T')).rejects.toThrow(TrustServiceError);
    await expect(produce('B-T')).rejects.toThrow(/time-stamping authority unreachable/);
    services.mode.tsa = 'garbage';
    await expect(produce('B-LTA')).rejects.toThrow(
      /time-stamping authority's answer is unreadable/,
    );
    services.mode.tsa = 'ok';
    services.mode.ocsp = 'down';
    services.mode.crl = 'down';
    await expect(produce('B-LT')).rejects.toThrow(/CRL distribution point unreachable/);
    services.mode.ocsp = 'garbage';
    services.mode.crl = 'ok';
    // The signer's OCSP answer is garbage; its CRL (the fallback) answers.
    const p = await produce('B-LT');
    expect(qpdfDss(p.output)!.OCSPs).toHaveLength(0);
    expect(qpdfDss(p.output)!.CRLs).toHaveLength(1);
  });

  it('refuses a revoked signing certificate at B-LT', async () => {
    const revokedDir = await mkdtemp(path.join(dir, 'revoked-'));
    const other = await startTrustServices();
    try {
      other.revokeSigningCertificate();
      const otherCert = await loadSigningCertificate({
        dataDir: revokedDir,
        signingCertP12: other.signingP12,
        signingCertPassword: other.signingPassword,
        generatedCertPassword: 'a-test-password',
      });
      const output = path.join(revokedDir, 'signed.pdf');
      await expect(
        finalizePdf(sampleInput(source, sha256hex(original), []), otherCert, output, {
          level: 'B-LT',
          tsa: { url: other.tsaUrl },
        }),
      ).rejects.toThrow(/revoked/);
    } finally {
      await other.close();
    }
  });
});
