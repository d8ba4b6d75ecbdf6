import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * The download link of a finished export: `token = <expiry ms>.<HMAC>` over the export id and
 * that expiry, keyed with the server secret, so any instance can check it, nothing is stored, and
 * the same link is shown on every GET until it expires.
 */

/** Domain separation: the server secret also signs upload URLs. */
const PURPOSE = 'signet-export-v1.';

const mac = (secret: Buffer, exportId: string, expiresMs: number) =>
  createHmac('sha256', secret).update(`${PURPOSE}${exportId}.${expiresMs}`).digest();

export function signExportToken(secret: Buffer, exportId: string, expiresMs: number): string {
  return `${expiresMs}.${mac(secret, exportId, expiresMs).toString('base64url')}`;
}

/** `valid`: made by us for this export; `expired`: genuine but past its time; `forged` otherwise. */
export function checkExportToken(
  secret: Buffer,
  exportId: string,
  token: string,
  now: Date,
): { state: 'valid' | 'expired' | 'forged'; expiresMs: number } {
  const match = /^(\d{13})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return { state: 'forged', expiresMs: 0 };
  const expiresMs = Number(match[1]);
  const given = Buffer.from(match[2], 'base64url');
  const want = mac(secret, exportId, expiresMs);
  if (given.length !== want.length || !timingSafeEqual(given, want))
    return { state: 'forged', expiresMs };
  return { state: now.getTime() < expiresMs ? 'valid' : 'expired', expiresMs };
}
