import type { FastifyRequest } from 'fastify';

/*
 * Tokens in URLs are credentials (a signing link, a download link, an upload URL): request logs
 * name the route with the token replaced, never the token itself.
 */

const TOKEN_PATHS: readonly RegExp[] = [
  /^(\/sign\/)[^?#]+/,
  /^(\/api\/v1\/signing\/)[^/?#]+/,
  /^(\/build\/)[^?#]+/,
  /^(\/api\/v1\/build\/)[^/?#]+/,
  /^(\/uploads\/)[^?#]+/,
  // Campaign pages: the slug is public; anything after it is not logged.
  /^(\/c\/[^/?#]+\/)[^?#]+/,
];
/** Query parameters that may carry a credential (presigned signatures, tokens, codes). */
const SECRET_QUERY =
  /([?&](?:token|signature|x-amz-signature|x-amz-credential|x-amz-security-token|code|key|secret)=)[^&#]*/gi;

const REDACTED = '[redacted]';

export function redactUrl(url: string): string {
  let out = url;
  for (const re of TOKEN_PATHS) out = out.replace(re, `$1${REDACTED}`);
  return out.replace(SECRET_QUERY, `$1${REDACTED}`);
}

/** Fastify's request log serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
