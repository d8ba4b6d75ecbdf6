import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { hookRoutes } from './route-hooks.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { openText, sealText } from '../secret-key.ts';
import { AppError } from './errors.ts';

const TTL_MS = 24 * 60 * 60 * 1000;
/** A row with this status is a request still in flight. */
const IN_FLIGHT = 0;
const ABANDONED_MS = 60 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { apiKeyId: string; key: string } | null;
  }
  interface FastifyContextConfig {
    /**
     * `false`: the route ignores `Idempotency-Key`. For a POST whose body is a raw stream and that
     * stores nothing (verification): a repeat does no harm, and the body is not a value to compare.
     */
    idempotency?: false;
  }
}

/** JSON with object members sorted, so a client that re-serializes the same body in another order still matches. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : v,
  );
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(request.method)
    .update('\0')
    .update(request.url)
    .update('\0')
    .update(canonicalJson(request.body ?? null))
    .digest('hex');
}

/**
 * `Idempotency-Key` on any authenticated POST: the first response (status and body) is stored
 * in the database for 24 hours, under the API key that made the request (never replayed to another
 * key, even of the same organization; purged after 24 hours by the retention job), and replayed for the same key and body, whichever instance
 * answers; the same key with another body is 409 `idempotency_conflict`. 5xx responses are not
 * stored, so a retry after a failure runs again. The stored answer is encrypted with `replayKey`
 * (derived from SECRET_KEY): some carry a secret shown once (a webhook's signing secret, a
 * signing link), and a copy of the database alone must not give them away.
 */
export function registerIdempotency(
  app: FastifyInstance,
  db: Db,
  clock: Clock,
  replayKey: Buffer,
): void {
  app.decorateRequest('idempotency', null);

  // Only authenticated POST routes take the header; other routes do not pay for the hooks.
  const applies = (route: RouteOptions) =>
    route.config?.scope !== undefined &&
    route.config.idempotency !== false &&
    [route.method].flat().includes('POST');
  hookRoutes(app, 'preHandler', applies, async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST' || !request.auth) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (key.length < 1 || key.length > 255) {
      throw new AppError('validation_error', 'Idempotency-Key must be 1-255 characters', [
        { path: 'headers.idempotency-key', message: 'must be 1-255 characters' },
      ]);
    }
    const { orgId, keyId: apiKeyId } = request.auth;
    const hash = requestHash(request);
    const now = clock.now();
    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('api_key_id', '=', apiKeyId)
      .where('key', '=', key)
      .executeTakeFirst();
    const age = existing ? now.getTime() - Date.parse(existing.created_at) : 0;
    // An in-flight claim older than a minute belongs to a request that died; it may be retried.
    const live = existing && age < (existing.status_code === IN_FLIGHT ? ABANDONED_MS : TTL_MS);
    if (existing && live) {
      if (existing.request_hash !== hash) {
        throw new AppError(
          'idempotency_conflict',
          'This Idempotency-Key was used with a different request',
        );
      }
      if (existing.status_code === IN_FLIGHT) {
        throw new AppError(
          'idempotency_in_progress',
          'A request with this Idempotency-Key is still being processed',
        );
      }
      reply.header('Idempotent-Replayed', 'true');
      reply.code(existing.status_code).type('application/json; charset=utf-8');
      // Answers stored before they were encrypted are read as they are (openText).
      return reply.send(
        existing.response_body === '' ? undefined : openText(replayKey, existing.response_body),
      );
    }
    if (existing) {
      await db
        .deleteFrom('idempotency_keys')
        .where('api_key_id', '=', apiKeyId)
        .where('key', '=', key)
        .execute();
    }
    try {
      await db
        .insertInto('idempotency_keys')
        .values({
          api_key_id: apiKeyId,
          org_id: orgId,
          key,
          request_hash: hash,
          status_code: IN_FLIGHT,
          response_body: '',
          created_at: now.toISOString(),
        })
        .execute();
    } catch {
      // Another request claimed the key between our read and insert.
      throw new AppError(
        'idempotency_in_progress',
        'A request with this Idempotency-Key is still being processed',
      );
    }
    request.idempotency = { apiKeyId, key };
  });

  hookRoutes(
    app,
    'onSend',
    applies,
    async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const claim = request.idempotency;
      if (!claim) return payload;
      request.idempotency = null;
      const where = db
        .deleteFrom('idempotency_keys')
        .where('api_key_id', '=', claim.apiKeyId)
        .where('key', '=', claim.key);
      if (
        reply.statusCode >= 500 ||
        (payload !== undefined && payload !== null && typeof payload !== 'string')
      ) {
        await where.execute();
        return payload;
      }
      await db
        .updateTable('idempotency_keys')
        .set({
          status_code: reply.statusCode,
          response_body: payload ? sealText(replayKey, payload as string) : '',
        })
        .where('api_key_id', '=', claim.apiKeyId)
        .where('key', '=', claim.key)
        .execute();
      return payload;
    },
  );
}
