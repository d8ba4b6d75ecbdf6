import { sql, type RawBuilder } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Dialect } from '../db/create-db.ts';
import type { Db, Executor, JobRow } from '../db/database.ts';
import { newId } from '../ids.ts';
import type { Pacer } from './pacer.ts';
import type { MailContent } from '../mail/layout.ts';

/** Job kinds and their payloads. A job is committed with the change that caused it (outbox). */
export interface JobPayloads {
  mail: {
    to: string;
    subject: string;
    text: string;
    html?: string;
    /** What the mail says and whose it is: rendered in the organization's look when sent (mail/templates.ts). */
    orgId?: string;
    content?: MailContent;
    /** Files read from storage when the mail is sent (the signed PDF): job payloads stay small. */
    storageAttachments?: { filename: string; storageKey: string; contentType: string }[];
    /** Set on mails carrying a signing link: a final delivery failure makes the document `action_required`. */
    signingInvitation?: { documentId: string; signerId: string };
  };
  /** Produces the signed PDF of a document whose signers have all completed (src/jobs/finalize.ts). */
  finalize: { documentId: string };
  /** Creates and sends the documents of rows [from, to) of a bulk send (src/modules/bulk-sends/bulk-send-rows.ts). */
  bulk_send: { bulkSendId: string; from: number; to: number };
  /** Cancels the documents a cancelled bulk send already sent, a batch per run. */
  bulk_send_cancel: { bulkSendId: string };
}
export type JobKind = keyof JobPayloads;

export type JobHandler<K extends JobKind> = (payload: JobPayloads[K], job: JobRow) => Promise<void>;
/** Called once when a job of the kind fails for good (attempts exhausted or a PermanentJobError). */
export type JobFailureHandler<K extends JobKind> = (payload: JobPayloads[K], error: string) => Promise<void>;

/** Thrown by a handler when retrying cannot help (e.g. the mail server rejected the address). */
export class PermanentJobError extends Error {}

const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 10;

/** Adds a job inside the caller's transaction. */
export async function enqueueJob<K extends JobKind>(
  trx: Executor,
  clock: Clock,
  kind: K,
  payload: JobPayloads[K],
  runAt?: Date,
): Promise<void> {
  const now = clock.now().toISOString();
  await trx
    .insertInto('jobs')
    .values({
      id: newId('job'),
      kind,
      payload: JSON.stringify(payload),
      status: 'pending',
      attempts: 0,
      run_at: (runAt ?? clock.now()).toISOString(),
      leased_until: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/**
 * The one claim statement of every background queue (jobs here, webhook deliveries in
 * webhook-delivery.ts): marks up to `limit` rows matching `due` with `set`, oldest `orderBy`
 * first, and returns them. One statement: on PostgreSQL the inner select skips rows other
 * instances hold; SQLite has a single writer, so the statement is atomic there too.
 */
export async function claimRows<T>(
  db: Db,
  dialect: Dialect,
  spec: { table: 'jobs' | 'webhook_deliveries'; set: RawBuilder<unknown>; due: RawBuilder<unknown>; orderBy: string; limit: number },
): Promise<T[]> {
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<T>`
    update ${sql.table(spec.table)} set ${spec.set}
    where id in (
      select id from ${sql.table(spec.table)}
      where ${spec.due}
      order by ${sql.ref(spec.orderBy)}
      limit ${spec.limit}
      ${lock}
    )
    returning *`.execute(db);
  return result.rows;
}

/**
 * Claims up to `limit` due jobs, or jobs whose lease expired (their runner died), and leases them;
 * only jobs of `kinds.only`, or all but those of `kinds.except`, when given.
 */
export async function claimJobs(
  db: Db,
  dialect: Dialect,
  clock: Clock,
  limit: number,
  leaseMs = LEASE_MS,
  kinds: { only?: string; except?: string } = {},
): Promise<JobRow[]> {
  const now = clock.now();
  const nowIso = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  return claimRows<JobRow>(db, dialect, {
    table: 'jobs',
    set: sql`status = 'running', leased_until = ${lease}, attempts = attempts + 1, updated_at = ${nowIso}`,
    due: sql`((status = 'pending' and run_at <= ${nowIso}) or (status = 'running' and leased_until < ${nowIso}))${
      kinds.only ? sql` and kind = ${kinds.only}` : kinds.except ? sql` and kind <> ${kinds.except}` : sql``
    }`,
    orderBy: 'run_at',
    limit,
  });
}

export class JobRunner {
  private readonly handlers = new Map<string, JobHandler<any>>();
  private readonly failureHandlers = new Map<string, JobFailureHandler<any>>();
  private readonly schedules = new Map<string, readonly number[]>();
  private readonly keepOnFailure = new Map<string, (payload: any) => unknown>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

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
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops polling and waits for the jobs in hand. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .then((claimed) => this.schedule(claimed > 0 ? 0 : this.pollMs))
        .catch((err) => {
          this.log.error({ err }, 'job runner tick failed');
          this.schedule(this.pollMs);
        });
    }, delay);
  }

  /** Runs one batch of due jobs; returns how many were claimed. */
  async tick(limit = 10): Promise<number> {
    let jobs: JobRow[];
    if (!this.paced) jobs = await claimJobs(this.db, this.dialect, this.clock, limit, this.leaseMs);
    else {
      const { kind, pacer } = this.paced;
      jobs = await claimJobs(this.db, this.dialect, this.clock, limit, this.leaseMs, { except: kind });
      const allowed = pacer.take(limit);
      const paced = allowed > 0 ? await claimJobs(this.db, this.dialect, this.clock, allowed, this.leaseMs, { only: kind }) : [];
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
      .set({ leased_until: new Date(now.getTime() + this.leaseMs).toISOString(), updated_at: now.toISOString() })
      .where('id', '=', job.id)
      .where('status', '=', 'running')
      .where('attempts', '=', job.attempts)
      .execute()
      .catch((err) => this.log.warn({ jobId: job.id, err }, 'job lease renewal failed'));
  }

  private async run(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.kind);
    const renewal = setInterval(() => void this.renewLease(job), Math.max(10, Math.floor(this.leaseMs / 3)));
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
      const exhausted = (schedule ? job.attempts > schedule.length : job.attempts >= MAX_ATTEMPTS) || err instanceof PermanentJobError;
      // The kind's schedule, else exponential backoff: 2s, 4s, 8s … capped at one hour.
      const delay = schedule ? (schedule[job.attempts - 1] ?? 0) : Math.min(3_600_000, 1000 * 2 ** job.attempts);
      this.log.warn({ jobId: job.id, kind: job.kind, attempts: job.attempts, err: message }, 'job failed');
      const onFinalFailure = exhausted ? this.failureHandlers.get(job.kind) : undefined;
      // Before the job is marked failed: after a crash in between, the job is claimed again and the
      // (idempotent) failure handler runs again, rather than never.
      if (onFinalFailure) {
        await onFinalFailure(JSON.parse(job.payload), message).catch((hookErr) =>
          this.log.error({ jobId: job.id, kind: job.kind, err: hookErr }, 'job failure handler failed'),
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
