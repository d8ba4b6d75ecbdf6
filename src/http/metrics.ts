import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

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
    const now = () => new Date().toISOString();
    // Queue gauges are read from the database at scrape time: every instance reports the shared queue.
    new Gauge({
      name: 'signet_job_queue_depth',
      help: 'Due jobs and webhook deliveries waiting to run',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        const at = now();
        const jobs = await db
          .selectFrom('jobs')
          .select(sql<number>`count(*)`.as('n'))
          .where('status', '=', 'pending')
          .where('run_at', '<=', at)
          .executeTakeFirst();
        const deliveries = await db
          .selectFrom('webhook_deliveries')
          .select(sql<number>`count(*)`.as('n'))
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', at)
          .executeTakeFirst();
        this.set({ queue: 'jobs' }, Number(jobs?.n ?? 0));
        this.set({ queue: 'webhook_deliveries' }, Number(deliveries?.n ?? 0));
      },
    });
    new Gauge({
      name: 'signet_job_oldest_due_age_seconds',
      help: 'Age of the oldest due job or delivery (0 when none is waiting)',
      labelNames: ['queue'] as const,
      registers: [this.registry],
      async collect() {
        const at = now();
        const jobs = await db
          .selectFrom('jobs')
          .select(sql<string | null>`min(run_at)`.as('t'))
          .where('status', '=', 'pending')
          .where('run_at', '<=', at)
          .executeTakeFirst();
        const deliveries = await db
          .selectFrom('webhook_deliveries')
          .select(sql<string | null>`min(next_attempt_at)`.as('t'))
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', at)
          .executeTakeFirst();
        const age = (t: string | null | undefined) =>
          t ? Math.max(0, (Date.parse(at) - Date.parse(t)) / 1000) : 0;
        this.set({ queue: 'jobs' }, age(jobs?.t));
        this.set({ queue: 'webhook_deliveries' }, age(deliveries?.t));
      },
    });
  }
}

/** Times every request by its route pattern (never the raw URL: ids would explode the label set). */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
