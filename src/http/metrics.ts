import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { AppError } from './errors.ts';

/** The Prometheus metrics of one app instance (a registry of its own, so tests can build many apps). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'signet_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: 'signet_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (success, http_error, timeout, network_error, blocked)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly finalizeDuration = new Histogram({
    name: 'signet_pdf_finalize_duration_seconds',
    help: 'Time to produce a signed PDF',
    buckets: [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30],
    registers: [this.registry],
  });

  readonly sealingFailures = new Counter({
    name: 'signet_sealing_failures_total',
    help: 'Failed sealing attempts (signed PDF not produced), by whether the job retries or gave up (the document is then action_required)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(db: Db, createBatches?: () => { statements: number; creates: number }) {
    collectDefaultMetrics({ register: this.registry, prefix: 'signet_' });
    const registry = this.registry;
    const total = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    if (createBatches) {
      // PostgreSQL: creates per statement, likewise (db/pg-insert-batch.ts).
      total(
        'signet_pg_create_statements_total',
        'Statements that inserted batched creates (PostgreSQL only)',
        () => createBatches().statements,
      );
      total(
        'signet_pg_creates_total',
        'Creates inserted by those statements (PostgreSQL only)',
        () => createBatches().creates,
      );
    }
    const queues = queueSnapshot(db);
    // Queue gauges are read from the database, so every instance reports the shared queue; at
    // most once per SNAPSHOT_MS whatever the scrape rate, and each count bounded (queueSnapshot).
    new Gauge({
      name: 'signet_job_queue_depth',
      help: `Due jobs and webhook deliveries waiting to run (counted up to ${QUEUE_COUNT_CAP}: that value means at least as many)`,
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        const q = await queues();
        this.set({ queue: 'jobs' }, q.jobs.depth);
        this.set({ queue: 'webhook_deliveries' }, q.deliveries.depth);
      },
    });
    new Gauge({
      name: 'signet_job_oldest_due_age_seconds',
      help: 'Age of the oldest due job or delivery (0 when none is waiting)',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        const q = await queues();
        this.set({ queue: 'jobs' }, q.jobs.oldestAgeSeconds);
        this.set({ queue: 'webhook_deliveries' }, q.deliveries.oldestAgeSeconds);
      },
    });
  }
}

/** Queue depths are counted up to this many rows, on the (status, due time) index. */
const QUEUE_COUNT_CAP = 10_000;
const SNAPSHOT_MS = 5_000;

interface QueueState {
  depth: number;
  oldestAgeSeconds: number;
}

/**
 * The due jobs and deliveries, read at most once per SNAPSHOT_MS (scrapes in between, from
 * Prometheus or anyone who may reach /metrics, share the answer) and each bounded: the first
 * QUEUE_COUNT_CAP due rows in due order, so a backlog of a million mails costs no more than one of
 * ten thousand (a count(*) over the whole queue grew with it, four times per scrape).
 */
function queueSnapshot(db: Db): () => Promise<{ jobs: QueueState; deliveries: QueueState }> {
  let taken = 0;
  let pending: Promise<{ jobs: QueueState; deliveries: QueueState }> | null = null;
  const read = async (
    table: 'jobs' | 'webhook_deliveries',
    due: 'run_at' | 'next_attempt_at',
    at: string,
  ): Promise<QueueState> => {
    const row = await db
      .selectFrom((eb) =>
        eb
          .selectFrom(table)
          .select(sql<string>`${sql.ref(due)}`.as('due'))
          .where('status', '=', 'pending')
          .where(due, '<=', at)
          .orderBy(due)
          .limit(QUEUE_COUNT_CAP)
          .as('first_due'),
      )
      .select([sql<number>`count(*)`.as('n'), sql<string | null>`min(due)`.as('oldest')])
      .executeTakeFirst();
    const oldest = row?.oldest;
    return {
      depth: Number(row?.n ?? 0),
      oldestAgeSeconds: oldest ? Math.max(0, (Date.parse(at) - Date.parse(oldest)) / 1000) : 0,
    };
  };
  return () => {
    const now = Date.now();
    if (!pending || now - taken >= SNAPSHOT_MS) {
      taken = now;
      const at = new Date(now).toISOString();
      pending = Promise.all([
        read('jobs', 'run_at', at),
        read('webhook_deliveries', 'next_attempt_at', at),
      ]).then(([jobs, deliveries]) => ({ jobs, deliveries }));
      // A failed read is not kept: the next scrape tries again.
      pending.catch(() => {
        pending = null;
      });
    }
    return pending;
  };
}

/**
 * Times every request by its route pattern (never the raw URL: ids would explode the label set),
 * and serves `/metrics`; with `METRICS_TOKEN` set, only to `Authorization: Bearer <token>` (401
 * otherwise). Without it the endpoint is open: bind it to a private network.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token?: string): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expected) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new AppError(
          'unauthorized',
          'Send METRICS_TOKEN as `Authorization: Bearer <token>`',
          undefined,
          {
            'WWW-Authenticate': 'Bearer realm="signet-metrics"',
          },
        );
    }
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
