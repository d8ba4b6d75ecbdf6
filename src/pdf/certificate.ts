import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import forge from 'node-forge';
import type { Config } from '../config.ts';

/** The key and certificate chain that sign finished documents, parsed once. */
export interface SigningCertificate {
  readonly privateKey: KeyObject;
  /** DER certificates, the signing certificate first, then its issuers. */
  readonly chain: readonly Buffer[];
  readonly certificate: X509Certificate;
  /** `configured`: SIGNING_CERT_P12; `self-signed`: generated under DATA_DIR. */
  readonly source: 'configured' | 'self-signed';
}

export type SigningCertConfig = Pick<Config, 'dataDir' | 'signingCertP12' | 'signingCertPassword'>;

export class SigningCertificateError extends Error {
  override name = 'SigningCertificateError';
}

const DEFAULT_P12 = 'signing-cert.p12';
const DEFAULT_PASSWORD = 'signing-cert.password';
/** A password file older than this without its .p12 is a crashed generation, not one in progress. */
const STALE_MS = 60_000;

/**
 * SIGNING_CERT_P12 (+ SIGNING_CERT_PASSWORD, empty when unset), or the self-signed
 * certificate kept in `${dataDir}/signing-cert.p12` with its random password beside it
 * (both mode 0600), generated on first use. Concurrent first uses (several processes or
 * worker threads) agree on one certificate: whoever links the password file first writes it.
 */
export async function loadSigningCertificate(config: SigningCertConfig): Promise<SigningCertificate> {
  if (config.signingCertP12) {
    let der: Buffer;
    try {
      der = await readFile(config.signingCertP12);
    } catch (err) {
      throw new SigningCertificateError(`SIGNING_CERT_P12: cannot read ${config.signingCertP12} (${(err as Error).message})`);
    }
    return parseP12(der, config.signingCertPassword ?? '', 'configured');
  }
  return loadOrCreateDefault(config.dataDir);
}

async function loadOrCreateDefault(dataDir: string): Promise<SigningCertificate> {
  const p12Path = path.join(dataDir, DEFAULT_P12);
  const passwordPath = path.join(dataDir, DEFAULT_PASSWORD);
  for (let attempt = 0; attempt < 200; attempt++) {
    const [der, password] = await Promise.all([
      readFile(p12Path).catch(() => null),
      readFile(passwordPath, 'utf8').catch(() => null),
    ]);
    if (der && password !== null) return parseP12(der, password.trim(), 'self-signed');
    if (password === null) {
      const created = await tryCreateDefault(dataDir, p12Path, passwordPath);
      if (created) return created;
    } else {
      const info = await stat(passwordPath).catch(() => null);
      if (info && Date.now() - info.mtimeMs > STALE_MS) await rm(passwordPath, { force: true });
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new SigningCertificateError(`${p12Path} did not appear; remove ${passwordPath} if a generation crashed`);
}

async function tryCreateDefault(dataDir: string, p12Path: string, passwordPath: string): Promise<SigningCertificate | null> {
  await mkdir(dataDir, { recursive: true });
  const password = randomBytes(24).toString('base64url');
  const tmp = path.join(dataDir, `.${DEFAULT_PASSWORD}.${randomBytes(6).toString('hex')}`);
  await writeFile(tmp, `${password}\n`, { mode: 0o600 });
  try {
    // link() fails when the name exists: an atomic "I am the one generating it", taken
    // before the costly key generation so that losers just wait for the winner's file.
    await link(tmp, passwordPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
  const { der, cert } = createSelfSigned(password);
  const tmpP12 = `${p12Path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmpP12, der, { mode: 0o600 });
  await link(tmpP12, p12Path).finally(() => rm(tmpP12, { force: true }));
  return cert;
}

function createSelfSigned(password: string): { der: Buffer; cert: SigningCertificate } {
  // node:crypto generates the key natively (forge's pure-JS keygen takes seconds).
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  // A positive serial: the high bit of the first byte clear.
  cert.serialNumber = `7${randomBytes(15).toString('hex')}`;
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + 10 * 365 * 24 * 3_600_000);
  const subject = [
    { name: 'commonName', value: 'Signet document signing (self-signed)' },
    { name: 'organizationName', value: 'Signet' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', critical: true, digitalSignature: true, nonRepudiation: true },
    // emailProtection, Adobe "Authentic Documents" and Microsoft "Document Signing".
    { name: 'extKeyUsage', emailProtection: true, '1.2.840.113583.1.1.5': true, '1.3.6.1.4.1.311.10.3.12': true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forgeKey, forge.md.sha256.create());
  const p12 = forge.pkcs12.toPkcs12Asn1(forgeKey, [cert], password, {
    algorithm: 'aes256',
    friendlyName: 'Signet signing certificate',
  });
  const certDer = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return {
    der: Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'),
    cert: { privateKey, chain: [certDer], certificate: new X509Certificate(certDer), source: 'self-signed' },
  };
}

/**
 * Opens a PKCS#12 file. forge decrypts it (legacy 3DES/RC2 and modern AES/PBES2 alike);
 * node:crypto then takes the key, so RSA and EC keys both work.
 */
export function parseP12(der: Buffer, password: string, source: SigningCertificate['source']): SigningCertificate {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der.toString('binary')), false, password);
  } catch (err) {
    throw new SigningCertificateError(`cannot open the signing certificate: ${(err as Error).message}`);
  }
  const toDer = (asn1: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');

  const keys: KeyObject[] = [];
  for (const bagType of [forge.pki.oids.pkcs8ShroudedKeyBag, forge.pki.oids.keyBag]) {
    for (const bag of p12.getBags({ bagType })[bagType] ?? []) {
      // forge only models RSA keys; for others it hands back the PKCS#8 structure.
      const pkcs8 = bag.key
        ? toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)))
        : bag.asn1
          ? toDer(bag.asn1)
          : null;
      if (pkcs8) keys.push(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
    }
  }
  const certs: X509Certificate[] = [];
  for (const bag of p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? []) {
    const asn1 = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1;
    if (asn1) certs.push(new X509Certificate(toDer(asn1)));
  }

  for (const privateKey of keys) {
    const leaf = certs.find((c) => c.checkPrivateKey(privateKey));
    if (!leaf) continue;
    const type = privateKey.asymmetricKeyType;
    if (type !== 'rsa' && type !== 'ec') {
      throw new SigningCertificateError(`unsupported signing key type ${type}: use an RSA or EC key`);
    }
    return { privateKey, chain: orderChain(leaf, certs).map((c) => c.raw), certificate: leaf, source };
  }
  throw new SigningCertificateError('the PKCS#12 file holds no private key with its certificate');
}

/** Leaf first, then each issuer found in the file; certificates outside the chain are left out. */
function orderChain(leaf: X509Certificate, all: X509Certificate[]): X509Certificate[] {
  const chain = [leaf];
  for (let current = leaf; chain.length <= all.length; ) {
    const issuer = all.find((c) => !chain.includes(c) && current.checkIssued(c) && current.verify(c.publicKey));
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

/** The signing certificate's subject common name (or whole subject), for the certificate page. */
export function certificateLabel(cert: SigningCertificate): string {
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.certificate.subject)?.[1];
  return cn ?? cert.certificate.subject.replace(/\n/g, ', ');
}
