import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config } from './config.ts';

/*
 * SECRET_KEY: the one server secret kept outside the database, so a database dump alone cannot
 * forge webhook deliveries or open the generated signing certificate. Required in production;
 * in development it is generated once into DATA_DIR/secret.key (mode 0600). Each use gets its own
 * key derived from it (HKDF-SHA256 with a purpose label), never the secret itself.
 */

const FILE = 'secret.key';
const MIN_SECRET_KEY_LENGTH = 32;

export async function loadSecretKey(
  config: Pick<Config, 'secretKey' | 'production' | 'dataDir'>,
): Promise<Buffer> {
  if (config.secretKey !== undefined) return Buffer.from(config.secretKey, 'utf8');
  if (config.production)
    throw new ConfigError(
      `SECRET_KEY is required in production (at least ${MIN_SECRET_KEY_LENGTH} characters, e.g. openssl rand -hex 32)`,
    );
  const file = path.join(config.dataDir, FILE);
  const existing = await readFile(file, 'utf8').catch(() => null);
  if (existing !== null && existing.trim() !== '') return Buffer.from(existing.trim(), 'utf8');
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // Written aside then linked into place: concurrent first starts agree on whichever links first.
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  await link(tmp, file)
    .catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    })
    .finally(() => rm(tmp, { force: true }));
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'utf8');
}

type KeyPurpose =
  | 'webhook-secrets'
  | 'signing-cert-password'
  /** Signs upload URLs and keys the hashes of one-time codes (deps.secret). */
  | 'server-tokens'
  /** Encrypts the answers kept for Idempotency-Key replays (some carry secrets). */
  | 'idempotency-replays'
  /** Keys the HMAC of a backup's manifest (signet backup verify). */
  | 'backup-manifest';

export function deriveKey(secretKey: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), `signet:${purpose}`, 32));
}

/** The generated certificate's PKCS#12 password: derived, never stored. */
export const signingCertPassword = (secretKey: Buffer) =>
  deriveKey(secretKey, 'signing-cert-password').toString('base64url');

const PREFIX = 'enc:v1:';

/** AES-256-GCM, stored as `enc:v1:<iv>.<ciphertext>.<tag>` (base64url). */
export function sealText(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${PREFIX}${[iv, ct, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.')}`;
}

export const isSealed = (stored: string) => stored.startsWith(PREFIX);

/** The plaintext of a sealed value; a value stored before encryption existed is returned as is. */
export function openText(key: Buffer, stored: string): string {
  if (!isSealed(stored)) return stored;
  const [iv, ct, tag] = stored
    .slice(PREFIX.length)
    .split('.')
    .map((p) => Buffer.from(p, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
}
