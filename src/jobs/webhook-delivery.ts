import type { FastifyBaseLogger } from 'fastify';
import { openText } from '../secret-key.ts';
import type { Clock } from '../clock.ts';
import type { Metrics } from '../http/metrics.ts';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/create-db.ts';
import type { Db, DeliveryRow } from '../db/database.ts';
import * as repo from '../modules/webhooks/deliveries.repository.ts';
import { settleDelivery } from '../modules/webhooks/delivery-status.ts';
import { isDelivering } from '../modules/webhooks/webhook-status.ts';
import { WebhookSender, type AttemptResult } from '../modules/webhooks/sender.ts';
import { OutcomeRecorder } from '../modules/webhooks/delivery-outcomes.ts';
import { deliveryHeaders } from '../http/delivery-signature.ts';
import { envelopeBody } from '../modules/webhooks/signature.ts';
import { addressPolicy } from '../modules/webhooks/ssrf.ts';

/**
 * How long past the request timeout a claimed delivery stays leased: time to record the attempt.
 * A worker that dies mid-attempt releases its deliveries when the lease runs out.
 */
const LEASE_MARGIN_MS = 5_000;

interface DeliveryWorkerDeps {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  config: Config;
  log: FastifyBaseLogger;
  /** Counts attempts by outcome for /metrics, when given. */
  metrics?: Metrics;
  /** Opens the webhook secrets, stored encrypted (src/secret-key.ts). */
  webhookKey: Buffer;
}

/** The outcome label of an attempt, for the attempts counter. */
function outcomeLabel(result: AttemptResult): string {
  if (result.ok) return 'success';
  if (result.statusCode !== null) return 'http_error';
  if (/^Timed out/.test(result.error ?? '')) return 'timeout';
  if (/block|not allowed|private|reserved/i.test(result.error ?? '')) return 'blocked';
  return 'network_error';
}

/**
 * Delivers webhook events, at least once: claims due deliveries with a lease (one statement,
 * safe with several server processes on one database), POSTs the signed envelope with several
 * attempts in flight, and hands each outcome to the OutcomeRecorder (retries, failure streak,
 * deactivation). A process that dies mid-attempt leaves its leases to expire; the deliveries
 * are then claimed again, with the same delivery id.
 */
export class DeliveryWorker {
  private readonly sender: WebhookSender;
  private readonly outcomes: OutcomeRecorder;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private stopped = true;
  private loop: Promise<void> | null = null;
  private wakeRequested = false;
  private wakeUp: (() => void) | null = null;

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    private readonly options: { pollMs?: number; concurrency?: number } = {},
  ) {
    this.sender = new WebhookSender(
      addressPolicy(deps.config),
      deps.config.webhookTimeoutMs,
      this.concurrency,
    );
    this.outcomes = new OutcomeRecorder(deps);
    this.leaseMs = deps.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  }

  private get concurrency(): number {
    return this.options.concurrency ?? 32;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Stops claiming and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    this.loop = null;
    await Promise.all([...this.inFlight]);
    this.sender.close();
  }

  /** Attempts every due delivery and waits for the outcomes, until none is due (tests, benchmarks). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.dispatch(this.concurrency);
      await Promise.all([...this.inFlight]);
      if (claimed === 0) return total;
      total += claimed;
    }
  }

  private wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  /** Sleeps until an attempt finishes (a slot is free) or the poll interval passes. */
  private sleep(ms: number): Promise<void> {
    if (this.wakeRequested) {
      this.wakeRequested = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = null;
        self.wakeRequested = false;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const free = this.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          await this.dispatch(free);
        } catch (err) {
          this.deps.log.error({ err }, 'webhook delivery: claiming failed');
        }
      }
      if (!this.stopped) await this.sleep(this.options.pollMs ?? 200);
    }
  }

  /**
   * Claims up to `limit` due deliveries and starts their attempts; returns how many. A failing
   * webhook gets one probe when its backoff has passed, the others only its due deliveries.
   */
  private async dispatch(limit: number): Promise<number> {
    const { db, dialect, clock } = this.deps;
    const probes = await repo.claimProbes(db, dialect, clock.now(), this.leaseMs, limit);
    const due =
      limit > probes.length
        ? await repo.claimDueDeliveries(
            db,
            dialect,
            clock.now(),
            this.leaseMs,
            limit - probes.length,
          )
        : [];
    const claims = [...probes, ...due];
    if (claims.length === 0) return 0;
    const targets = await repo.findTargets(
      db,
      claims.map((c) => c.id),
    );
    for (const claim of claims) {
      const task: Promise<void> = this.attempt(claim, targets.get(claim.id))
        .catch((err) =>
          this.deps.log.error(
            { err, deliveryId: claim.id },
            'webhook delivery: attempt could not be recorded; it is retried when its lease expires',
          ),
        )
        .finally(() => {
          this.inFlight.delete(task);
          // Refill in batches, not one claim per finished attempt: fewer statements under load.
          if (this.concurrency - this.inFlight.size >= Math.ceil(this.concurrency / 4)) this.wake();
        });
      this.inFlight.add(task);
    }
    return claims.length;
  }

  private async attempt(
    claim: DeliveryRow,
    target: repo.DeliveryTarget | undefined,
  ): Promise<void> {
    const { db, clock } = this.deps;
    if (!target?.url || !target.secret) {
      // Deleted after the delivery was queued: no attempt.
      await settleDelivery(db, claim, {
        status: 'cancelled',
        next_attempt_at: null,
        updated_at: clock.now().toISOString(),
      });
      return;
    }
    if (!isDelivering({ status: target.webhook_status })) {
      // Deactivated after the claim: held for its reactivation, this claim not counted as an attempt.
      await settleDelivery(db, claim, {
        attempt_count: claim.attempt_count - 1,
        updated_at: clock.now().toISOString(),
      });
      return;
    }
    if (target.event_data === null || target.event_created_at === null) {
      await settleDelivery(db, claim, {
        status: 'failed',
        next_attempt_at: null,
        updated_at: clock.now().toISOString(),
      });
      this.deps.log.error(
        { deliveryId: claim.id, eventId: claim.event_id },
        'webhook delivery: event row missing',
      );
      return;
    }
    const body = envelopeBody({
      id: claim.id,
      eventType: claim.event_type,
      eventCreatedAt: target.event_created_at,
      eventData: target.event_data,
    });
    const startedAt = clock.now();
    const headers = deliveryHeaders({
      secret: openText(this.deps.webhookKey, target.secret),
      deliveryId: claim.id,
      eventType: claim.event_type,
      timestamp: Math.floor(startedAt.getTime() / 1000),
      body,
    });
    const result = await this.sender.send(target.url, headers, body);
    await this.record(claim, target.url, startedAt, result);
  }

  private async record(
    claim: DeliveryRow,
    url: string,
    startedAt: Date,
    result: AttemptResult,
  ): Promise<void> {
    await this.outcomes.record({ claim, url, startedAt, result });
    this.deps.metrics?.webhookAttempts.inc({ outcome: outcomeLabel(result) });
    const fields = {
      deliveryId: claim.id,
      webhookId: claim.webhook_id,
      attempt: claim.attempt_count,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
    };
    if (result.ok) this.deps.log.debug(fields, 'webhook attempt succeeded');
    else this.deps.log.info({ ...fields, error: result.error }, 'webhook attempt failed');
  }
}
