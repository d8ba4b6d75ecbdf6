import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Dialect } from '../db/create-db.ts';
import type { Db, JobRow } from '../db/database.ts';
import type { Pacer } from './pacer.ts';
import {
  claimJobs,
  LEASE_MS,
  MAX_ATTEMPTS,
  PermanentJobError,
  type JobFailureHandler,
  type JobHandler,
  type JobKind,
  type JobPayloads,
} from '../queue/queue.ts';

/*
 * The job runner: claims due jobs (queue.ts) and runs each with its kind's handler, renewing its
 * lease while it runs, retrying on its schedule and failing it for good past its attempts.
 */

export class JobRunner {
  // Each kind's handler takes its own payload type; the map holds them all, keyed by kind.
  // biome-ignore lint/suspicious/noExplicitAny: one map for handlers of every payload type
  private readonly handlers = new Map<string, JobHandler<any>>();
  // biome-ignore lint/suspicious/noExplicitAny: as above
  private readonly failureHandlers = new Map<string, JobFailureHandler<any>>();
  private readonly schedules = new Map<string, readonly number[]>();
  // biome-ignore lint/suspicious/noExplicitAny: as above
  private readonly keepOnFailure = new Map<string, (payload: any) => unknown>();
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** Jobs in hand, by kind class: the loop claims more while these are below their bounds. */
  private readonly inFlight = { paced: new Set<Promise<void>>(), other: new Set<Promise<void>>() };
  private stopped = true;
  /** Whether to claim other (unpaced) jobs on the loop's next turn. */
  private otherDue = true;
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly pollMs = 250,
    /** How long a claim holds a job; renewed every third of it while the job runs. */
    private readonly leaseMs = LEASE_MS,
    /** Jobs of this kind are claimed no faster than its pacer allows (mail: MAIL_RATE_PER_SECOND). */
    private readonly paced?: { kind: JobKind; pacer: Pacer },
    /**
     * How many jobs the loop holds at once: paced ones (mail: one SMTP connection each) and the
     * rest. Paced jobs are claimed as the pacer's tokens come, not batch by batch, so the rate
     * follows the setting however long each one takes, up to `paced` in flight (Little's law:
     * 10 connections carry 100 mails a second at 100 ms a mail).
     */
    private readonly concurrency = { paced: 10, other: 10 },
  ) {}

  /**
   * `retrySchedule`: the delays between attempts of this kind (attempts exhausted after the last);
   * without it, exponential backoff for up to MAX_ATTEMPTS attempts.
   */
  register<K extends JobKind>(
    kind: K,
    handler: JobHandler<K>,
    onFinalFailure?: JobFailureHandler<K>,
    options: {
      retrySchedule?: readonly number[];
      /** What of the payload a job that failed for good keeps (mail: not its body, which holds links and codes). */
      keepOnFailure?: (payload: JobPayloads[K]) => unknown;
    } = {},
  ): void {
    this.handlers.set(kind, handler);
    if (onFinalFailure) this.failureHandlers.set(kind, onFinalFailure);
    if (options.retrySchedule) this.schedules.set(kind, options.retrySchedule);
    if (options.keepOnFailure) this.keepOnFailure.set(kind, options.keepOnFailure);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.claimLoop();
  }

  /** Stops claiming and waits for the jobs in hand. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  /**
   * Claims jobs continuously while there are free slots (and, for the paced kind, tokens): a slow
   * job holds only its own slot, so one slow mail does not hold back the next ones. Each kind is
   * claimed again at once only while its last claim came back full; other jobs otherwise at the
   * next poll or when one of them finishes (a claim of them that finds nothing still reads every
   * due invitation, so it is not repeated after every mail), mail when a token and a connection
   * are free.
   */
  private async claimLoop(): Promise<void> {
    let pacedBacklog = true;
    let pollAt = 0;
    while (!this.stopped) {
      const pollDue = performance.now() >= pollAt;
      if (pollDue) {
        pollAt = performance.now() + this.pollMs;
        this.otherDue = true;
      }
      let again = false;
      try {
        if (this.otherDue) {
          const other = await this.claimInto('other', this.otherKinds());
          // All slots taken (nothing asked): due again as soon as one frees up.
          this.otherDue = other.asked === 0;
          if (other.asked > 0 && other.got === other.asked) again = this.otherDue = true;
        }
        // Mail whenever a token and a connection are free: invitations are queued while earlier ones
        // go out, and waiting for the next poll once the queue looked empty held them back.
        if (this.paced && !this.stopped) {
          const free = this.concurrency.paced - this.inFlight.paced.size;
          const allowed = free > 0 ? this.paced.pacer.take(free) : 0;
          if (allowed > 0) {
            const paced = await this.claimInto('paced', [this.paced.kind], allowed);
            this.paced.pacer.giveBack(allowed - paced.got);
            pacedBacklog = paced.got === allowed;
            if (pacedBacklog) again = true;
          }
        }
      } catch (err) {
        this.log.error({ err }, 'job runner claim failed');
      }
      if (this.stopped) break;
      if (again) {
        // Let the jobs just started run their first steps before claiming again.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      let wait = Math.max(1, pollAt - performance.now());
      // Mail is waiting: for the next token, or (no connection free) for one to finish, which wakes the loop.
      if (pacedBacklog && this.paced && this.inFlight.paced.size < this.concurrency.paced)
        wait = Math.min(wait, Math.max(1, this.paced.pacer.waitMs()));
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, wait);
      });
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.wake = null;
    }
    await Promise.all([...this.inFlight.paced, ...this.inFlight.other]);
  }

  /** The kinds claimed unpaced: every registered kind but the paced one (all kinds without pacing). */
  private otherKinds(): readonly string[] | undefined {
    if (!this.paced) return undefined;
    const paced = this.paced.kind;
    return [...this.handlers.keys()].filter((k) => k !== paced);
  }

  /** Claims up to the free slots of `slot` (at most `limit`) and starts them without waiting. */
  private async claimInto(
    slot: 'paced' | 'other',
    kinds: readonly string[] | undefined,
    limit = Infinity,
  ): Promise<{ asked: number; got: number }> {
    const asked = Math.min(limit, this.concurrency[slot] - this.inFlight[slot].size);
    if (asked <= 0) return { asked: 0, got: 0 };
    const jobs = await claimJobs(this.db, this.dialect, this.clock, asked, this.leaseMs, kinds);
    for (const job of jobs) {
      const running: Promise<void> = this.run(job)
        .catch((err) =>
          this.log.error({ jobId: job.id, kind: job.kind, err }, 'job outcome not recorded'),
        )
        .finally(() => {
          this.inFlight[slot].delete(running);
          if (slot === 'other') this.otherDue = true;
          // A slot is free: claim again now rather than at the next poll.
          this.wake?.();
        });
      this.inFlight[slot].add(running);
    }
    return { asked, got: jobs.length };
  }

  /** Runs one batch of due jobs and waits for it; returns how many were claimed (tests, CLI). */
  async tick(limit = 10): Promise<number> {
    let jobs: JobRow[];
    if (!this.paced) jobs = await claimJobs(this.db, this.dialect, this.clock, limit, this.leaseMs);
    else {
      const { kind, pacer } = this.paced;
      jobs = await claimJobs(
        this.db,
        this.dialect,
        this.clock,
        limit,
        this.leaseMs,
        this.otherKinds(),
      );
      const allowed = pacer.take(limit);
      const paced =
        allowed > 0
          ? await claimJobs(this.db, this.dialect, this.clock, allowed, this.leaseMs, [kind])
          : [];
      pacer.giveBack(allowed - paced.length);
      jobs.push(...paced);
    }
    await Promise.all(jobs.map((job) => this.run(job)));
    return jobs.length;
  }

  /** Runs due jobs until none is left (tests, CLI), waiting for the pacer when it holds jobs back. */
  async drain(): Promise<void> {
    for (;;) {
      if ((await this.tick(50)) > 0) continue;
      const wait = this.paced?.pacer.waitMs() ?? 0;
      if (wait === 0) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * Extends the lease of a job still running, so a slow job (a large sealing) is never claimed
   * by another runner as if this one had died. Only while this runner still holds it.
   */
  private renewLease(job: JobRow): Promise<unknown> {
    const now = this.clock.now();
    return this.db
      .updateTable('jobs')
      .set({
        leased_until: new Date(now.getTime() + this.leaseMs).toISOString(),
        updated_at: now.toISOString(),
      })
      .where('id', '=', job.id)
      .where('status', '=', 'running')
      .where('attempts', '=', job.attempts)
      .execute()
      .catch((err) => this.log.warn({ jobId: job.id, err }, 'job lease renewal failed'));
  }

  private async run(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.kind);
    const renewal = setInterval(
      () => void this.renewLease(job),
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    try {
      if (!handler) throw new Error(`No handler for job kind ${job.kind}`);
      await handler(JSON.parse(job.payload), job);
      clearInterval(renewal);
      await this.db.deleteFrom('jobs').where('id', '=', job.id).execute();
    } catch (err) {
      clearInterval(renewal);
      const message = err instanceof Error ? err.message : String(err);
      const now = this.clock.now();
      const schedule = this.schedules.get(job.kind);
      const exhausted =
        (schedule ? job.attempts > schedule.length : job.attempts >= MAX_ATTEMPTS) ||
        err instanceof PermanentJobError;
      // The kind's schedule, else exponential backoff: 2s, 4s, 8s … capped at one hour.
      const delay = schedule
        ? (schedule[job.attempts - 1] ?? 0)
        : Math.min(3_600_000, 1000 * 2 ** job.attempts);
      this.log.warn(
        { jobId: job.id, kind: job.kind, attempts: job.attempts, err: message },
        'job failed',
      );
      const onFinalFailure = exhausted ? this.failureHandlers.get(job.kind) : undefined;
      // Before the job is marked failed: after a crash in between, the job is claimed again and the
      // (idempotent) failure handler runs again, rather than never.
      if (onFinalFailure) {
        await onFinalFailure(JSON.parse(job.payload), message).catch((hookErr) =>
          this.log.error(
            { jobId: job.id, kind: job.kind, err: hookErr },
            'job failure handler failed',
          ),
        );
      }
      const keep = exhausted ? this.keepOnFailure.get(job.kind) : undefined;
      await this.db
        .updateTable('jobs')
        .set({
          ...(keep ? { payload: JSON.stringify(keep(JSON.parse(job.payload))) } : {}),
          status: exhausted ? 'failed' : 'pending',
          run_at: new Date(now.getTime() + delay).toISOString(),
          leased_until: null,
          last_error: message.slice(0, 1000),
          updated_at: now.toISOString(),
        })
        .where('id', '=', job.id)
        .execute();
    }
  }
}
