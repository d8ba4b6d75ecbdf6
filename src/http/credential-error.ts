import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';
import { limited, type Counters } from './counters.ts';

/**
 * A refusal because the credential itself did not check out: an API key that is malformed,
 * unknown or revoked, an upload token whose signature is forged, a signing token that was never
 * issued. Only these count as failed authentications of an address (AUTH_FAILURES_PER_MINUTE).
 * A genuine credential refused for another reason is not one: an upload URL that expired, a
 * signing link revoked or past its date, a missing or wrong one-time code (codes have limits of
 * their own), a request that sent no key at all.
 */
export class CredentialError extends AppError {}

const WINDOW_MS = 60_000;

const clientIp = (request: FastifyRequest) => request.ip ?? request.socket?.remoteAddress ?? '';

/**
 * What the error handler does with a `CredentialError`: counts it against the client's address
 * and, once the address is past `perMinute` in the current minute, answers 429 `rate_limited`
 * instead. Counted only when a credential fails, so a request whose key checks out is never
 * refused for what other requests from its address did (one bad cron job, or anyone behind the
 * same proxy, takes nobody else offline) and costs no counter look-up. `perMinute` 0 turns it off.
 */
export function credentialFailures(
  counters: Counters,
  perMinute: number,
): (request: FastifyRequest, err: CredentialError) => Promise<AppError> {
  return async (request, err) => {
    if (perMinute <= 0) return err;
    const { count, resetMs } = await counters.hit(`authfail:${clientIp(request)}`, WINDOW_MS);
    if (count <= perMinute) return err;
    return limited(
      `Too many failed authentications from your address (at most ${perMinute} a minute)`,
      resetMs,
    );
  };
}
