import { X509Certificate, generateKeyPairSync, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import forge from 'node-forge';
import type { Config } from '../config.ts';
import { loadSecretKey, signingCertPassword } from '../secret-key.ts';
import {
  SigningCertificateError,
  encodeRsaP12,
  parseP12,
  type SigningCertificate,
} from './pkcs12.ts';

export { SigningCertificateError, type SigningCertificate } from './pkcs12.ts';

/**
 * What opening the signing certificate needs: SIGNING_CERT_P12 and its password, or the generated
 * certificate's directory and its password, derived from SECRET_KEY (never stored).
 */
export type SigningCertConfig = Pick<
  Config,
  'dataDir' | 'signingCertP12' | 'signingCertPassword'
> & {
  readonly generatedCertPassword: string;
};

/** The certificate configuration of `config`, the generated certificate's password derived from SECRET_KEY (loaded when not given). */
export async function signingCertConfig(
  config: Pick<
    Config,
    'dataDir' | 'signingCertP12' | 'signingCertPassword' | 'secretKey' | 'production'
  >,
  secretKey?: Buffer,
): Promise<SigningCertConfig> {
  const key = secretKey ?? (await loadSecretKey(config));
  return {
    dataDir: config.dataDir,
    signingCertP12: config.signingCertP12,
    signingCertPassword: config.signingCertPassword,
    generatedCertPassword: signingCertPassword(key),
  };
}

const DEFAULT_P12 = 'signing-cert.p12';
/** Held (created with link(), so only one holder) while a process or thread generates the certificate; holds no secret. */
const LOCK = 'signing-cert.lock';
/** Where earlier versions kept the generated certificate's password in plain text; migrated away on first use. */
const LEGACY_PASSWORD = 'signing-cert.password';
/** A lock older than this without its .p12 is a crashed generation, not one in progress. */
const STALE_MS = 60_000;

/**
 * SIGNING_CERT_P12 (+ SIGNING_CERT_PASSWORD, empty when unset), or the self-signed certificate
 * kept in `${dataDir}/signing-cert.p12` (mode 0600), encrypted with the password derived from
 * SECRET_KEY and generated on first use. Concurrent first uses (several processes or worker
 * threads) agree on one certificate: whoever links the lock file first generates it.
 */
export async function loadSigningCertificate(
  config: SigningCertConfig,
): Promise<SigningCertificate> {
  if (config.signingCertP12) {
    let der: Buffer;
    try {
      der = await readFile(config.signingCertP12);
    } catch (err) {
      throw new SigningCertificateError(
        `SIGNING_CERT_P12: cannot read ${config.signingCertP12} (${(err as Error).message})`,
      );
    }
    return parseP12(der, config.signingCertPassword ?? '', 'configured');
  }
  return loadOrCreateDefault(config.dataDir, config.generatedCertPassword);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function loadOrCreateDefault(dataDir: string, password: string): Promise<SigningCertificate> {
  const p12Path = path.join(dataDir, DEFAULT_P12);
  const lockPath = path.join(dataDir, LOCK);
  for (let attempt = 0; attempt < 200; attempt++) {
    const der = await readFile(p12Path).catch(() => null);
    if (der) {
      const opened = await openGenerated(dataDir, der, password);
      if (opened) return opened;
      continue; // another process replaced the file meanwhile (a migration): read it again
    }
    if (await takeLock(dataDir, lockPath)) {
      try {
        // A generation that finished between our read and our lock: use its file.
        if (await stat(p12Path).catch(() => null)) continue;
        return await createDefault(p12Path, password);
      } finally {
        await rm(lockPath, { force: true });
      }
    }
    const info = await stat(lockPath).catch(() => null);
    if (info && Date.now() - info.mtimeMs > STALE_MS) await rm(lockPath, { force: true });
    await sleep(50);
  }
  throw new SigningCertificateError(
    `${p12Path} did not appear; remove ${lockPath} if a generation crashed`,
  );
}

/**
 * Opens the generated certificate with the derived password. A file from an earlier version is
 * encrypted with the password kept beside it: it is re-encrypted with the derived password,
 * replaced atomically, and the password file deleted. null: the file changed while we read it.
 */
async function openGenerated(
  dataDir: string,
  der: Buffer,
  password: string,
): Promise<SigningCertificate | null> {
  const p12Path = path.join(dataDir, DEFAULT_P12);
  const legacyPath = path.join(dataDir, LEGACY_PASSWORD);
  let cert: SigningCertificate;
  try {
    cert = parseP12(der, password, 'self-signed');
  } catch {
    const legacy = await readFile(legacyPath, 'utf8').catch(() => null);
    if (legacy === null) {
      const now = await readFile(p12Path).catch(() => null);
      if (now && !now.equals(der)) return null;
      throw new SigningCertificateError(
        `${p12Path} does not open with the password derived from SECRET_KEY: SECRET_KEY is not the one this certificate was generated with. ` +
          'Restore that SECRET_KEY, or move the file away to have a new certificate generated (documents sealed before keep their signatures).',
      );
    }
    try {
      cert = parseP12(der, legacy.trim(), 'self-signed');
    } catch {
      const now = await readFile(p12Path).catch(() => null);
      if (now && !now.equals(der)) return null;
      throw new SigningCertificateError(
        `${p12Path} opens neither with the password derived from SECRET_KEY nor with the one in ${legacyPath}`,
      );
    }
    const tmp = `${p12Path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, encodeRsaP12(cert.privateKey, cert.chain, password), { mode: 0o600 });
    await rename(tmp, p12Path).catch(async (err: unknown) => {
      await rm(tmp, { force: true });
      throw err;
    });
  }
  // Migrated now, or by another process before us: the plain-text password has no use left.
  await rm(legacyPath, { force: true });
  return cert;
}

async function takeLock(dataDir: string, lockPath: string): Promise<boolean> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${lockPath}.${randomBytes(6).toString('hex')}`;
  await writeFile(tmp, `${process.pid} ${new Date().toISOString()}\n`, { mode: 0o600 });
  try {
    // link() fails when the name exists: an atomic "I am the one generating it", taken
    // before the costly key generation so that losers just wait for the winner's file.
    await link(tmp, lockPath);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}

async function createDefault(p12Path: string, password: string): Promise<SigningCertificate> {
  const { der, cert } = createSelfSigned(password);
  const tmpP12 = `${p12Path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmpP12, der, { mode: 0o600 });
  await link(tmpP12, p12Path).finally(() => rm(tmpP12, { force: true }));
  return cert;
}

function createSelfSigned(password: string): { der: Buffer; cert: SigningCertificate } {
  // node:crypto generates the key natively (forge's pure-JS keygen takes seconds).
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const forgeKey = forge.pki.privateKeyFromPem(
    privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  );
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
    {
      name: 'extKeyUsage',
      emailProtection: true,
      '1.2.840.113583.1.1.5': true,
      '1.3.6.1.4.1.311.10.3.12': true,
    },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forgeKey, forge.md.sha256.create());
  const certDer = Buffer.from(
    forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(),
    'binary',
  );
  return {
    der: encodeRsaP12(privateKey, [certDer], password),
    cert: {
      privateKey,
      chain: [certDer],
      certificate: new X509Certificate(certDer),
      source: 'self-signed',
    },
  };
}

/** The signing certificate's subject common name (or whole subject), for the certificate page. */
export function certificateLabel(cert: SigningCertificate): string {
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.certificate.subject)?.[1];
  return cn ?? cert.certificate.subject.replace(/\n/g, ', ');
}
