import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Executor, SignerRow } from '../../db/database.ts';
import { hashAccessCode } from '../documents-core/access-code-hash.ts';
import { isLocked } from './code-failures.ts';

/*
 * Signer access codes (README "Signer authentication"): a code of 4-64 characters the sender gives
 * the signer out of band. Only an HMAC keyed with the server secret is stored, bound to the signer,
 * so a copy of the database alone cannot be tried offline and two signers with the same code do
 * not share a hash. The right code buys a signing session of one hour: an HMAC over the signer,
 * the session's end and the stored hash, so a session needs no table, works with every link of
 * the signer, and dies when the sender changes the code. Five wrong codes lock every link of the
 * signer until the sender issues a new link or resends the invitation.
 */

export const MAX_ACCESS_CODE_FAILURES = 5;
export const ACCESS_CODE_MAX = 64;
const SESSION_LIFETIME_MS = 3600 * 1000;
/** The header every token call of a signer with an access code carries. */
export const SESSION_HEADER = 'x-signing-session';

export const accessSubject = (signerId: string) => `access:${signerId}`;

/** Compares in constant time; false when the signer has no code. */
export function accessCodeMatches(
  secret: Buffer,
  signer: Pick<SignerRow, 'id' | 'access_code_hash'>,
  code: string,
): boolean {
  if (!signer.access_code_hash) return false;
  const given = Buffer.from(hashAccessCode(secret, signer.id, code), 'hex');
  const stored = Buffer.from(signer.access_code_hash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

const sessionMac = (secret: Buffer, signerId: string, expiresMs: number, codeHash: string) =>
  createHmac('sha256', secret)
    .update(`signing-session:${signerId}:${expiresMs}:${codeHash}`)
    .digest('base64url');

export function issueSession(
  secret: Buffer,
  signer: Pick<SignerRow, 'id' | 'access_code_hash'>,
  nowMs: number,
): { session: string; expiresAt: string } {
  const expiresMs = nowMs + SESSION_LIFETIME_MS;
  const session = `${expiresMs.toString(36)}.${sessionMac(secret, signer.id, expiresMs, signer.access_code_hash ?? '')}`;
  return { session, expiresAt: new Date(expiresMs).toISOString() };
}

/** Whether `session` was issued to this signer for its current code and has not ended. */
export function sessionValid(
  secret: Buffer,
  signer: Pick<SignerRow, 'id' | 'access_code_hash'>,
  session: string | undefined,
  nowMs: number,
): boolean {
  if (!session || !signer.access_code_hash || session.length > 200) return false;
  const [end, mac] = session.split('.');
  const expiresMs = Number.parseInt(end ?? '', 36);
  if (!Number.isSafeInteger(expiresMs) || expiresMs <= nowMs || !mac) return false;
  const expected = Buffer.from(sessionMac(secret, signer.id, expiresMs, signer.access_code_hash));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Whether the signer used up its wrong access codes. */
export const accessLocked = (db: Executor, signerId: string) =>
  isLocked(db, accessSubject(signerId), MAX_ACCESS_CODE_FAILURES);
