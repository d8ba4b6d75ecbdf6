import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../http/errors.ts';
import { CredentialError } from '../../http/credential-error.ts';
import { UPLOAD_CONTENT_TYPES, type UploadContentType } from './documents.schemas.ts';

/** What receives the file: a document, or a template (whose file documents are made from). */
export type UploadTarget = 'document' | 'template';

/** What an upload URL allows: one document's or template's file, of one type, up to a size, until a time. */
export interface UploadGrant {
  target: UploadTarget;
  /** The document's or template's id. */
  targetId: string;
  orgId: string;
  /** Storage key the bytes are written to. */
  fileKey: string;
  contentType: UploadContentType;
  maxBytes: number;
  /** Whether the file's text tags become fields. */
  textTags?: boolean;
  /** Epoch milliseconds after which the URL is refused. */
  expiresAt: number;
}

/** Domain separation: the server secret also signs other kinds of tokens. */
const PURPOSE = 'signet-upload-v1.';
const MAC_BYTES = 32;
const MAX_TOKEN_CHARS = 2000;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const isCanonical = (part: string) => Buffer.from(part, 'base64url').toString('base64url') === part;

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(PURPOSE).update(payload).digest();
}

/**
 * A stateless token `base64url(JSON grant).base64url(HMAC-SHA256)`: nothing is stored, any
 * instance sharing the server secret can check it, and changing any bound value breaks the MAC.
 */
export function signUploadToken(secret: Buffer, grant: UploadGrant): string {
  const claims = {
    d: grant.targetId,
    o: grant.orgId,
    k: grant.fileKey,
    t: grant.contentType,
    m: grant.maxBytes,
    e: grant.expiresAt,
    // Only present when tags are asked for, so other tokens keep their shape.
    ...(grant.textTags ? { x: 1 } : {}),
  };
  // `s` is only present for templates, so document tokens keep their shape.
  const payload = Buffer.from(
    JSON.stringify(grant.target === 'template' ? { ...claims, s: 't' } : claims),
  ).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** Forged or garbled: counted as a failed authentication of the address (an expired one is not). */
const forged = () =>
  new CredentialError(
    'forbidden',
    'This upload URL is not valid; request a new one with POST /api/v1/documents/{id}/upload (or /api/v1/templates/{id}/upload)',
  );

/**
 * The grant of a genuine, unexpired token. Forged or garbled: 403 `forbidden`; genuine but
 * expired: 401 `unauthorized` (the client should request a new URL, not retry this one).
 */
export function verifyUploadToken(secret: Buffer, token: string, now: Date): UploadGrant {
  if (token.length > MAX_TOKEN_CHARS) throw forged();
  const parts = token.split('.');
  if (parts.length !== 2 || !BASE64URL.test(parts[0]) || !BASE64URL.test(parts[1])) throw forged();
  const [payload, signature] = parts;
  // Base64url decoding ignores the unused bits of the last character, so several spellings decode
  // to the same bytes: only the one this server wrote (the canonical form) is the token.
  if (!isCanonical(payload) || !isCanonical(signature)) throw forged();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(secret, payload))) throw forged();

  // Past the MAC the payload is ours, but it is still checked rather than trusted blindly.
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    throw forged();
  }
  const { d, o, k, t, m, e, s, x } = claims;
  if (
    (s !== undefined && s !== 't') ||
    (x !== undefined && x !== 1) ||
    typeof d !== 'string' ||
    typeof o !== 'string' ||
    typeof k !== 'string' ||
    !UPLOAD_CONTENT_TYPES.includes(t as UploadContentType) ||
    !Number.isSafeInteger(m) ||
    !Number.isSafeInteger(e)
  ) {
    throw forged();
  }
  const grant: UploadGrant = {
    target: s === 't' ? 'template' : 'document',
    targetId: d,
    orgId: o,
    fileKey: k,
    contentType: t as UploadContentType,
    maxBytes: m as number,
    ...(x === 1 ? { textTags: true } : {}),
    expiresAt: e as number,
  };
  if (now.getTime() >= grant.expiresAt) {
    throw new AppError(
      'unauthorized',
      `This upload URL expired at ${new Date(grant.expiresAt).toISOString()}; request a new one with POST /api/v1/${grant.target}s/${grant.targetId}/upload`,
    );
  }
  return grant;
}
