import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SigningCertificateError,
  loadSigningCertificate,
  type SigningCertificate,
} from '../../src/pdf/certificate.ts';
import { finalizePdf } from '../../src/pdf/finalize.ts';
import { signingCertPassword } from '../../src/secret-key.ts';
import {
  checkSignature,
  hasPoppler,
  makePdf,
  poppler,
  sampleInput,
  sha256,
} from './pdf-helpers.ts';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'signet-cert-'));
  if (!hasOpenssl) console.warn('openssl not found: skipping the configured-certificate tests');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const SECRET = Buffer.from('a-secret-key-for-the-certificate-tests-0123');
const noP12 = (dataDir: string) => ({
  dataDir,
  signingCertP12: undefined,
  signingCertPassword: undefined,
  generatedCertPassword: signingCertPassword(SECRET),
});
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

/** Signs a small PDF with `cert` and checks the signature names exactly that certificate. */
async function signWith(cert: SigningCertificate, expectedLeafDer: Buffer, label: string) {
  const original = await makePdf({ pages: 1, useObjectStreams: false });
  const source = path.join(dir, `${label}-in.pdf`);
  const output = path.join(dir, `${label}-out.pdf`);
  await writeFile(source, original);
  await finalizePdf(sampleInput(source, sha256(original), []), cert, output);
  const check = checkSignature(await readFile(output));
  expect(check).toMatchObject({
    digestMatches: true,
    signatureValid: true,
    signingCertificateV2Matches: true,
  });
  expect(check.certificateDer.equals(expectedLeafDer)).toBe(true);
  if (hasPoppler) {
    const out = poppler('pdfsig', [output]).output;
    expect(out).toContain('Signature Validation: Signature is Valid.');
    expect(out).toContain('Total document signed');
    return out;
  }
  return '';
}

describe('loadSigningCertificate: the self-signed default', () => {
  it('generates a private certificate encrypted with the password derived from SECRET_KEY, stored nowhere, and reuses it', async () => {
    const dataDir = path.join(dir, 'default');
    const first = await loadSigningCertificate(noP12(dataDir));
    expect(first.source).toBe('self-signed');
    expect(first.certificate.subject).toContain('CN=Signet document signing (self-signed)');
    expect(first.certificate.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.4.1.311.10.3.12']));
    expect(first.certificate.checkPrivateKey(first.privateKey)).toBe(true);
    expect((await stat(path.join(dataDir, 'signing-cert.p12'))).mode & 0o777).toBe(0o600);
    // Only the certificate: no password file, no lock left behind.
    expect(await readdir(dataDir)).toEqual(['signing-cert.p12']);
    // openssl opens it with the derived password, and with nothing else.
    if (hasOpenssl) {
      const p12 = path.join(dataDir, 'signing-cert.p12');
      expect(
        spawnSync('openssl', [
          'pkcs12',
          '-in',
          p12,
          '-nokeys',
          '-passin',
          `pass:${signingCertPassword(SECRET)}`,
        ]).status,
      ).toBe(0);
      expect(
        spawnSync('openssl', ['pkcs12', '-in', p12, '-nokeys', '-passin', 'pass:']).status,
      ).not.toBe(0);
    }

    const again = await loadSigningCertificate(noP12(dataDir));
    expect(again.certificate.fingerprint256).toBe(first.certificate.fingerprint256);
    const out = await signWith(again, again.chain[0], 'default');
    if (hasPoppler)
      expect(out).toContain(
        'Signer Certificate Common Name: Signet document signing (self-signed)',
      );
  });

  it('agrees on one certificate when several callers create it at the same time', async () => {
    const dataDir = path.join(dir, 'race');
    const certs = await Promise.all(
      Array.from({ length: 4 }, () => loadSigningCertificate(noP12(dataDir))),
    );
    expect(new Set(certs.map((c) => c.certificate.fingerprint256)).size).toBe(1);
    expect(await readdir(dataDir)).toEqual(['signing-cert.p12']);
  });

  it('takes over a lock left behind by a crashed generation', async () => {
    const dataDir = path.join(dir, 'stale');
    await mkdir(dataDir);
    await writeFile(path.join(dataDir, 'signing-cert.lock'), '123 crashed\n');
    const old = new Date(Date.now() - 5 * 60_000);
    await utimes(path.join(dataDir, 'signing-cert.lock'), old, old);
    const cert = await loadSigningCertificate(noP12(dataDir));
    expect(cert.source).toBe('self-signed');
    expect(await readdir(dataDir)).toEqual(['signing-cert.p12']);
    const reloaded = await loadSigningCertificate(noP12(dataDir));
    expect(reloaded.certificate.fingerprint256).toBe(cert.certificate.fingerprint256);
  });

  it('refuses a certificate generated under another SECRET_KEY, saying so', async () => {
    const dataDir = path.join(dir, 'other-key');
    const cert = await loadSigningCertificate(noP12(dataDir));
    const otherKey = {
      ...noP12(dataDir),
      generatedCertPassword: signingCertPassword(
        Buffer.from('another-secret-key-0123456789abcdef'),
      ),
    };
    await expect(loadSigningCertificate(otherKey)).rejects.toThrow(SigningCertificateError);
    await expect(loadSigningCertificate(otherKey)).rejects.toThrow(
      /does not open with the password derived from SECRET_KEY/,
    );
    // Nothing was replaced: the right key still opens the same certificate.
    expect((await loadSigningCertificate(noP12(dataDir))).certificate.fingerprint256).toBe(
      cert.certificate.fingerprint256,
    );
  });

  it('migrates a certificate of an earlier version (password in signing-cert.password): re-encrypted, password file deleted', async () => {
    const dataDir = path.join(dir, 'legacy');
    await mkdir(dataDir);
    // What earlier versions wrote: a PKCS#12 under a random password kept beside it in plain text.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(
      path.join(dir, 'legacy.key'),
      privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    if (!hasOpenssl) return;
    openssl(
      'req',
      '-x509',
      '-key',
      'legacy.key',
      '-out',
      'legacy.pem',
      '-days',
      '30',
      '-subj',
      '/CN=Legacy generated',
    );
    openssl(
      'pkcs12',
      '-export',
      '-inkey',
      'legacy.key',
      '-in',
      'legacy.pem',
      '-passout',
      'pass:old-random-password',
      '-out',
      path.join(dataDir, 'signing-cert.p12'),
    );
    await writeFile(path.join(dataDir, 'signing-cert.password'), 'old-random-password\n', {
      mode: 0o600,
    });
    const before = await readFile(path.join(dataDir, 'signing-cert.p12'));

    // Several processes start at once on the old directory: all open the same certificate.
    const opened = await Promise.all(
      Array.from({ length: 3 }, () => loadSigningCertificate(noP12(dataDir))),
    );
    const expected = new X509Certificate(await readFile(path.join(dir, 'legacy.pem')))
      .fingerprint256;
    for (const c of opened) expect(c.certificate.fingerprint256).toBe(expected);
    expect(await readdir(dataDir)).toEqual(['signing-cert.p12']);
    const after = await readFile(path.join(dataDir, 'signing-cert.p12'));
    expect(after.equals(before)).toBe(false);
    expect((await stat(path.join(dataDir, 'signing-cert.p12'))).mode & 0o777).toBe(0o600);
    const p12 = path.join(dataDir, 'signing-cert.p12');
    expect(
      spawnSync('openssl', ['pkcs12', '-in', p12, '-nokeys', '-passin', 'pass:old-random-password'])
        .status,
    ).not.toBe(0);
    expect(
      spawnSync('openssl', [
        'pkcs12',
        '-in',
        p12,
        '-nokeys',
        '-passin',
        `pass:${signingCertPassword(SECRET)}`,
      ]).status,
    ).toBe(0);

    // The migrated file opens with the derived password alone, with the same key, and signs.
    const reloaded = await loadSigningCertificate(noP12(dataDir));
    expect(reloaded.certificate.fingerprint256).toBe(expected);
    expect(reloaded.certificate.checkPrivateKey(reloaded.privateKey)).toBe(true);
    await signWith(reloaded, reloaded.chain[0], 'legacy');
  });
});

describe.skipIf(!hasOpenssl)('loadSigningCertificate: SIGNING_CERT_P12', () => {
  beforeAll(() => {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '30',
      '-subj',
      '/CN=Test Root CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
    );
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'leaf.key',
      '-out',
      'leaf.csr',
      '-subj',
      '/CN=Acme Signing/O=Acme',
    );
    openssl(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      '4242',
      '-days',
      '30',
      '-out',
      'leaf.pem',
    );
    openssl('x509', '-in', 'leaf.pem', '-outform', 'DER', '-out', 'leaf.der');
    openssl('x509', '-in', 'ca.pem', '-outform', 'DER', '-out', 'ca.der');
    openssl(
      'pkcs12',
      '-export',
      '-inkey',
      'leaf.key',
      '-in',
      'leaf.pem',
      '-certfile',
      'ca.pem',
      '-passout',
      'pass:s3cret',
      '-out',
      'chain.p12',
    );
    openssl(
      'pkcs12',
      '-export',
      '-inkey',
      'leaf.key',
      '-in',
      'leaf.pem',
      '-passout',
      'pass:old',
      '-out',
      'legacy.p12',
      '-certpbe',
      'PBE-SHA1-3DES',
      '-keypbe',
      'PBE-SHA1-3DES',
      '-macalg',
      'sha1',
    );
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ec.key',
      '-out',
      'ec.pem',
      '-days',
      '30',
      '-subj',
      '/CN=EC Signer',
    );
    openssl('x509', '-in', 'ec.pem', '-outform', 'DER', '-out', 'ec.der');
    openssl(
      'pkcs12',
      '-export',
      '-inkey',
      'ec.key',
      '-in',
      'ec.pem',
      '-passout',
      'pass:ec',
      '-out',
      'ec.p12',
    );
  });
  const configured = (file: string, password?: string) => ({
    dataDir: path.join(dir, 'unused'),
    signingCertP12: path.join(dir, file),
    signingCertPassword: password,
    generatedCertPassword: 'unused',
  });

  it('loads an RSA key with its chain, leaf first, and signs with it', async () => {
    const cert = await loadSigningCertificate(configured('chain.p12', 's3cret'));
    expect(cert.source).toBe('configured');
    expect(cert.chain).toHaveLength(2);
    expect(cert.chain[0].equals(await readFile(path.join(dir, 'leaf.der')))).toBe(true);
    expect(cert.chain[1].equals(await readFile(path.join(dir, 'ca.der')))).toBe(true);
    const out = await signWith(cert, cert.chain[0], 'chain');
    if (hasPoppler) expect(out).toContain('Signer Certificate Common Name: Acme Signing');
    // Configured: the self-signed default was never created.
    await expect(stat(path.join(dir, 'unused'))).rejects.toThrow();
  });

  it('loads a legacy 3DES/SHA-1 PKCS#12', async () => {
    const cert = await loadSigningCertificate(configured('legacy.p12', 'old'));
    expect(cert.chain[0].equals(await readFile(path.join(dir, 'leaf.der')))).toBe(true);
  });

  it('signs with an EC P-256 key', async () => {
    const cert = await loadSigningCertificate(configured('ec.p12', 'ec'));
    expect(cert.privateKey.asymmetricKeyType).toBe('ec');
    await signWith(cert, await readFile(path.join(dir, 'ec.der')), 'ec');
  });

  it('refuses a wrong password and a missing file with a clear error', async () => {
    await expect(loadSigningCertificate(configured('chain.p12', 'wrong'))).rejects.toThrow(
      SigningCertificateError,
    );
    await expect(loadSigningCertificate(configured('chain.p12', 'wrong'))).rejects.not.toThrow(
      /wrong/,
    );
    await expect(loadSigningCertificate(configured('nope.p12', 'x'))).rejects.toThrow(
      /SIGNING_CERT_P12: cannot read .*nope\.p12/,
    );
  });
});
