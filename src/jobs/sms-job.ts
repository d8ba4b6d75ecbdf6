import type { AppDeps } from '../deps.ts';
import type { JobRunner } from './job-runner.ts';
import { onSmsUndeliverable } from '../modules/signing/sms-delivery.ts';
import { PermanentJobError } from '../queue/queue.ts';
import { SmsRejected } from '../sms/sms-sender.ts';

/**
 * Delays between the attempts of one text message: the last falls before the code's 10 minutes
 * are over. Each attempt first checks the code is still valid (Twilio takes no idempotency key, so
 * a message retried late could arrive twice and after its code expired: it is never sent then).
 */
const SMS_RETRY_SCHEDULE = [5_000, 15_000, 30_000, 60_000, 120_000, 180_000] as const;

/** Job `sms`: sends one code; a message refused for good or never sent makes the document `action_required`. */
export function registerSmsJob(jobs: JobRunner, deps: AppDeps): void {
  jobs.register(
    'sms',
    async ({ to, body, idempotencyKey, expiresAt }) => {
      if (Date.parse(expiresAt) <= deps.clock.now().getTime())
        throw new PermanentJobError('the code expired before the message could be delivered');
      try {
        await deps.sms.send({ to, body, idempotencyKey });
      } catch (err) {
        // A peer's answer may quote the message: its code never reaches the audit log or the sender.
        const codes = body.match(/\d{4,}/g) ?? [];
        const message = codes.reduce(
          (text, code) => text.split(code).join('••••••'),
          err instanceof Error ? err.message : String(err),
        );
        if (err instanceof SmsRejected) throw new PermanentJobError(message);
        throw new Error(message);
      }
    },
    (payload, error) => onSmsUndeliverable(deps, payload, error),
    {
      retrySchedule: SMS_RETRY_SCHEDULE,
      // A failed message keeps who it was for, not the code.
      keepOnFailure: ({ to, documentId, signerId }) => ({ to, documentId, signerId }),
    },
  );
}
