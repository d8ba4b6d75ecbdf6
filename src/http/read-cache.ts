import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { hookRoutes } from './route-hooks.ts';
import type { Metrics } from './metrics.ts';

/*
 * Answers of read routes, kept in memory for as long as the database is unchanged.
 *
 * Every entry carries the database's change mark (create-db.ts) read before the answer was
 * computed, and is served only while the mark is still the same: any row inserted, updated or
 * deleted by this process, or any commit by another process on the same file (the CLI, a second
 * instance), retires every entry at once. There is no invalidation to forget on some write path,
 * so an answer is never stale; the price is that a database written to all the time gains
 * nothing. A client polling a document, a dashboard paging the list between changes, and the
 * benchmark (`npm run bench -- get-by-id list`) do.
 *
 * On PostgreSQL another instance's commit retires them when its notification arrives
 * (db/pg-change-feed.ts), typically within a millisecond; while that feed is not known to work
 * the mark is null and nothing is cached or served from memory. READ_CACHE=off turns both
 * caches off.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The database's change mark read when the request was authenticated; null without one. */
    changeMark: string | null;
    /** The entry this request's answer would fill; null when it must not be kept. */
    readCacheKey: string | null;
  }
  interface FastifyContextConfig {
    /** The route's 200 answers depend only on the organization, the URL and the database. */
    readCache?: boolean;
  }
}

interface Entry {
  mark: string;
  /** The answer's bytes, encoded once (a string would be encoded again on every send). */
  body: Buffer;
}

/**
 * The oldest entries leave first, beyond `maxEntries` or `maxBytes` of bodies. (Not the least
 * recently used: every change to the database retires all entries anyway, and keeping the
 * order would cost each hit two more map operations.)
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 5_000,
    private readonly maxBytes = 32 * 2 ** 20,
  ) {}

  get(key: string, mark: string): Buffer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.mark !== mark) {
      this.remove(key, entry);
      return undefined;
    }
    return entry.body;
  }

  set(key: string, mark: string, text: string): void {
    const body = Buffer.from(text);
    if (body.length > this.maxBytes / 16) return; // one answer never takes over the cache
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, { mark, body });
    this.bytes += body.length;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.remove(k, e);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.body.length;
  }
}

/** Keeps this request's answer out of the cache (it depends on more than the database). */
export function noReadCache(request: FastifyRequest): void {
  request.readCacheKey = null;
}

export function registerReadCache(app: FastifyInstance, changeMark: (() => string | null) | undefined, metrics: Metrics): void {
  app.decorateRequest('changeMark', null);
  app.decorateRequest('readCacheKey', null);
  if (!changeMark) return;
  const cache = new ReadCache();

  // After authentication, validation and rate limiting: a cached answer skips only the handler.
  const cached = (route: RouteOptions) => route.config?.readCache === true;
  hookRoutes(app, 'preHandler', cached, (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const mark = request.changeMark;
    if (mark === null || request.method !== 'GET' || !request.auth) return done();
    const key = `${request.auth.orgId} ${request.url}`;
    const body = cache.get(key, mark);
    if (body === undefined) {
      metrics.readCache.inc({ outcome: 'miss' });
      request.readCacheKey = key;
      return done();
    }
    metrics.readCache.inc({ outcome: 'hit' });
    reply.header('content-type', 'application/json; charset=utf-8').send(body);
  });

  hookRoutes(app, 'onSend', cached, (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
    const key = request.readCacheKey;
    if (key !== null && reply.statusCode === 200 && typeof payload === 'string' && request.changeMark !== null) {
      cache.set(key, request.changeMark, payload);
    }
    done(null, payload);
  });
}
