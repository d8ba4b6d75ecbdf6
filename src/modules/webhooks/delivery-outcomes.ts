import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db, DeliveryRow, Executor } from '../../db/database.ts';
import { newId } from '../../ids.ts';
import * as repo from './deliveries.repository.ts';
import { afterDeactivation, countFailure } from './webhook-status.ts';
import { type DeliveryStatus, settleDelivery } from './delivery-status.ts';
import type { AttemptResult } from './sender.ts';

/** One finished attempt waiting to be written. */
interface Outcome {
  claim: DeliveryRow;
  url: string;
  startedAt: Date;
  result: AttemptResult;
}

interface Queued extends Outcome {
  resolve(): void;
  reject(err: unknown): void;
}

const MAX_BATCH = 100;

/**
 * Writes attempt outcomes: the attempt row, the delivery's next state (succeeded, retry at
 * `WEBHOOK_RETRY_SCHEDULE`, or failed), and the webhook's streak of consecutive failures, which
 * sets its backoff (one probe per step, see webhook-status.ts) and at 20 deactivates it (its
 * pending deliveries are held, not dropped) and emails the organization's admin.
 *
 * Outcomes that finish while a write is in progress are written together by the next one (group
 * commit), so a busy worker does not pay one transaction per attempt.
 */
export class OutcomeRecorder {
  private readonly queue: Queued[] = [];
  private writing = false;

  constructor(
    private readonly deps: { db: Db; clock: Clock; config: Config; log: FastifyBaseLogger },
  ) {}

  /** Resolves once the outcome is committed. */
  record(outcome: Outcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...outcome, resolve, reject });
      // Wait for the end of this event-loop turn: responses read in the same turn share a transaction.
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.writeQueued());
      }
    });
  }

  private async writeQueued(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          this.logDeactivations(
            await this.deps.db.transaction().execute((trx) => this.write(trx, batch)),
          );
          for (const o of batch) o.resolve();
        } catch {
          // One outcome that cannot be written must not take the others with it.
          for (const o of batch) {
            try {
              this.logDeactivations(
                await this.deps.db.transaction().execute((trx) => this.write(trx, [o])),
              );
              o.resolve();
            } catch (err) {
              o.reject(err);
            }
          }
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private logDeactivations(deactivated: { webhookId: string; failures: number }[]): void {
    for (const d of deactivated)
      this.deps.log.warn(d, 'webhook deactivated after consecutive failures');
  }

  /**
   * Webhook rows first, in id order (so concurrent writers, here or in another process, lock them
   * in one order and cannot deadlock on PostgreSQL), then each delivery under its lease, then
   * the consequences of a deactivation.
   */
  private async write(
    trx: Executor,
    batch: Outcome[],
  ): Promise<{ webhookId: string; failures: number }[]> {
    const { clock, config } = this.deps;
    const now = clock.now();
    const nowIso = now.toISOString();
    const deactivated: { outcome: Outcome; orgId: string; failures: number }[] = [];
    // The webhook's n-th failure in a row waits the schedule's n-th delay before its next probe (the last one repeats).
    const backoff = (failures: number) =>
      config.webhookRetrySchedule[Math.min(failures, config.webhookRetrySchedule.length) - 1] ?? 0;
    let lastReset: string | null = null;
    for (const o of [...batch].sort((a, b) =>
      a.claim.webhook_id < b.claim.webhook_id
        ? -1
        : a.claim.webhook_id > b.claim.webhook_id
          ? 1
          : 0,
    )) {
      if (o.result.ok) {
        // Successes in a row need one reset.
        if (lastReset !== o.claim.webhook_id)
          await repo.resetFailures(trx, o.claim.webhook_id, nowIso);
        lastReset = o.claim.webhook_id;
        continue;
      }
      lastReset = null;
      const hook = await countFailure(trx, o.claim.webhook_id, {
        now: nowIso,
        startedAt: o.startedAt.toISOString(),
        backoff,
      });
      // `inactive` comes back only from the update that crossed the threshold: once per streak.
      if (hook?.status === 'inactive')
        deactivated.push({ outcome: o, orgId: hook.org_id, failures: hook.failure_count });
    }

    const schedule = config.webhookRetrySchedule;
    for (const { claim, result, startedAt } of batch) {
      // attempt_count already counts this attempt (the claim incremented it): attempt n+1 waits schedule[n-1].
      const next: { status: DeliveryStatus; next_attempt_at: string | null } = result.ok
        ? { status: 'succeeded', next_attempt_at: null }
        : claim.attempt_count <= schedule.length
          ? {
              status: 'pending',
              next_attempt_at: new Date(
                now.getTime() + schedule[claim.attempt_count - 1],
              ).toISOString(),
            }
          : { status: 'failed', next_attempt_at: null };
      await settleDelivery(trx, claim, {
        ...next,
        last_status_code: result.statusCode,
        updated_at: nowIso,
      });
      await repo.insertAttempt(trx, {
        id: newId('wat'),
        delivery_id: claim.id,
        attempted_at: startedAt.toISOString(),
        status_code: result.statusCode,
        duration_ms: result.durationMs,
        error: result.error,
        response_body: result.responseBody,
      });
    }

    for (const { outcome, orgId, failures } of deactivated) {
      await afterDeactivation(trx, clock, {
        webhookId: outcome.claim.webhook_id,
        orgId,
        url: outcome.url,
        failures,
        lastError: outcome.result.error ?? '',
        now: nowIso,
      });
    }
    return deactivated.map((d) => ({
      webhookId: d.outcome.claim.webhook_id,
      failures: d.failures,
    }));
  }
}
