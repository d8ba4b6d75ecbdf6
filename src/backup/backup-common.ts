import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';

/** A refusal or failure to explain to the person running the command (no stack trace). */
export class BackupError extends Error {}

/** The version of Signet that wrote a backup, for the manifest (informative only). */
export const SIGNET_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** The generated certificate's file in DATA_DIR (src/pdf/certificate.ts). */
export const GENERATED_CERT = 'signing-cert.p12';
/** Where development keeps its generated SECRET_KEY (src/secret-key.ts). */
export const SECRET_KEY_FILE = 'secret.key';

export const sqliteFile = (dataDir: string) => path.join(dataDir, 'signet.db');

/**
 * SECRET_KEY as the server would use it (the variable, else DATA_DIR/secret.key), but never
 * generated: verify and restore must not invent a key, and say so when there is none.
 */
export async function existingSecretKey(
  config: Pick<Config, 'secretKey' | 'dataDir'>,
): Promise<Buffer | null> {
  if (config.secretKey !== undefined) return Buffer.from(config.secretKey, 'utf8');
  const text = await readFile(path.join(config.dataDir, SECRET_KEY_FILE), 'utf8').catch(() => '');
  return text.trim() === '' ? null : Buffer.from(text.trim(), 'utf8');
}
