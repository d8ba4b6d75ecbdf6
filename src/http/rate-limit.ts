import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { AppError } from './errors.ts';

/** Operational routes a load balancer or browser polls; limiting them would only cause false alarms. */
const UNLIMITED = /^\/(healthz|readyz|metrics|openapi\.json|docs)(\/|$)/;

const WINDOW_MS = 60_000;

/**
 * `RATE_LIMIT_PER_MINUTE` requests per minute per API key (per client IP on routes without a
 * key: signing links, uploads, public campaign pages); `0` turns limiting off. The check runs in
 * `preValidation`, i.e. after authentication has set `request.auth` and before the body is
 * validated, so refused requests count too. With `REDIS_URL` every instance draws on one budget.
 */
export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  const max = config.rateLimitPerMinute;
  if (max === 0) return;

  let redis: Redis | undefined;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, {
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
      app.log.warn({ err: err.message }, 'rate limit: Redis unreachable; requests pass unlimited until it is back');
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
  }

  await app.register(rateLimit, {
    hook: 'preValidation',
    max,
    timeWindow: WINDOW_MS,
    enableDraftSpec: true,
    // An outage of the shared counter store must not take the API down with it.
    skipOnError: true,
    redis,
    nameSpace: 'signet:ratelimit:',
    keyGenerator: (request: FastifyRequest) => (request.auth ? `key:${request.auth.keyId}` : `ip:${request.ip}`),
    allowList: (request: FastifyRequest) => UNLIMITED.test(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'rate_limited',
        `Rate limit of ${context.max} requests per minute exceeded; retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s`,
      ),
  });
}
