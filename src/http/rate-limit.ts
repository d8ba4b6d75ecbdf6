import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { AppError } from './errors.ts';
import type { Counters } from './counters.ts';

/** Operational routes a load balancer or browser polls; limiting them would only cause false alarms. */
export const UNLIMITED = /^\/(healthz|readyz|metrics|openapi\.json|docs)(\/|$)/;

const WINDOW_MS = 60_000;

/** Connects to `REDIS_URL` for shared counters, or returns undefined (in-process counters). */
export async function connectRedis(
  app: FastifyInstance,
  config: Config,
): Promise<Redis | undefined> {
  if (!config.redisUrl) return undefined;
  // Loaded only when configured: the client is a tenth of a second of every start without it.
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.redisUrl, {
    // Fail fast instead of queueing while Redis is away; skipOnError then lets the request through.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    lazyConnect: false,
  });
  const client = redis;
  // ioredis retries forever and emits an error per attempt; log each outage once.
  let up = false;
  let warned = false;
  client.on('ready', () => {
    up = true;
    warned = false;
  });
  client.on('error', (err: Error) => {
    if (warned) return;
    warned = true;
    up = false;
    app.log.warn(
      { err: err.message },
      'rate limit: Redis unreachable; requests pass unlimited until it is back',
    );
  });
  // Start counting from the first request when Redis is there; do not hold startup hostage when it is not.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2_000);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', done);
    client.once('error', done);
  });
  if (!up) app.log.warn('rate limit: starting without Redis');
  app.addHook('onClose', async () => {
    await client.quit().catch(() => client.disconnect());
  });
  return redis;
}

/**
 * The secret a route takes in its path (signing links, upload URLs), if it has one. The upload
 * route takes its token as a wildcard (the router caps named parameters at 100 characters).
 */
const tokenOf = (request: FastifyRequest): string | undefined => {
  const params = request.params as { token?: unknown; '*'?: unknown } | undefined;
  if (typeof params?.token === 'string') return params.token;
  if (request.routeOptions.url === '/uploads/*' && typeof params?.['*'] === 'string')
    return params['*'];
  return undefined;
};

/**
 * Every limit on who may ask, checked in `onRequest`, before any body is read:
 *
 * - `RATE_LIMIT_PER_MINUTE` requests per minute per API key (per client IP on routes without a
 *   key: signing links, uploads, public campaign pages); `0` turns this one off. It runs after
 *   the key is authenticated, so it counts per key, and before validation, so refused requests
 *   count too.
 * - `RATE_LIMIT_TOKEN_PER_MINUTE` per signing or upload token (whatever IPs it comes from).
 *
 * Failed authentications per address (`AUTH_FAILURES_PER_MINUTE`) are counted where a credential
 * is refused (http/credential-error.ts), never for a request whose key checks out.
 * With `REDIS_URL` every instance draws on one budget.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  config: Config,
  redis: Redis | undefined,
  counters: Counters,
): Promise<void> {
  const { perTokenPerMinute } = config.limits;
  if (perTokenPerMinute > 0) {
    app.addHook('onRequest', async (request) => {
      if (UNLIMITED.test(request.routeOptions.url ?? '')) return;
      const token = tokenOf(request);
      if (token === undefined) return;
      // Hashed: the key names no secret, in memory or in Redis.
      await counters.take(
        `token:${hash('sha256', token, 'hex')}`,
        perTokenPerMinute,
        WINDOW_MS,
        'requests per minute with one link',
      );
    });
  }

  const max = config.rateLimitPerMinute;
  if (max === 0) return;
  await app.register(rateLimit, {
    hook: 'onRequest',
    max,
    timeWindow: WINDOW_MS,
    enableDraftSpec: true,
    // An outage of the shared counter store must not take the API down with it.
    skipOnError: true,
    redis,
    nameSpace: 'signet:ratelimit:',
    keyGenerator: (request: FastifyRequest) =>
      request.auth ? `key:${request.auth.keyId}` : `ip:${request.ip}`,
    allowList: (request: FastifyRequest) => UNLIMITED.test(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'rate_limited',
        `Rate limit of ${context.max} requests per minute exceeded; retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s`,
      ),
  });
}
