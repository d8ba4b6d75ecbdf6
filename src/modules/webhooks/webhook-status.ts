import type { Clock } from '../../clock.ts';
import type { Executor, WebhookStatus, WebhookUpdate } from '../../db/database.ts';
import { enqueueJob } from '../../queue/queue.ts';
import { checkTransition, predecessors, type Transitions } from '../../state-machine.ts';
import { FAILURES_BEFORE_DEACTIVATION } from './webhooks.schemas.ts';
import { webhookDeactivatedMail } from './webhooks.mail.ts';

/*
 * The webhook state machine: `active` ⇄ `inactive`, by the sender (PATCH) or, to `inactive`, by
 * FAILURES_BEFORE_DEACTIVATION consecutive failed attempts. This module is the only code that
 * changes the status of an existing webhook.
 */
export const WEBHOOK_TRANSITIONS: Transitions<WebhookStatus> = {
  active: ['inactive'],
  inactive: ['active'],
};

/**
 * The action guard: only an active webhook gets attempts (an inactive one's deliveries are held),
 * and only for one may the sender retry a delivery or send a test event.
 */
export const isDelivering = (hook: { status: string | null }) => hook.status === 'active';

/** Sets the webhook's status to `to` with `changes`; false when it already had that status. */
export async function moveWebhook(
  db: Executor,
  id: string,
  to: WebhookStatus,
  changes: WebhookUpdate,
): Promise<boolean> {
  const from = predecessors(WEBHOOK_TRANSITIONS, to);
  const result = await db
    .updateTable('webhooks')
    .set({ ...changes, status: to })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Counts one more consecutive failure of an active webhook and, at FAILURES_BEFORE_DEACTIVATION,
 * deactivates it in the same statement; the webhook's next probe then waits `backoff(count)`.
 * An attempt that started before the latest counted failure was recorded failed together with
 * it (attempts in flight when the receiver went down): it is not counted again, so a receiver
 * that is down costs one counted failure per retry step, not one per queued delivery.
 * Returns the new count and status (undefined when the failure was not counted or the webhook is
 * not active any more): `inactive` means this very failure deactivated it, once per streak.
 */
export async function countFailure(
  db: Executor,
  webhookId: string,
  args: { now: string; startedAt: string; backoff: (failures: number) => number },
) {
  checkTransition('webhook', WEBHOOK_TRANSITIONS, ['active'], 'inactive');
  const hook = await db
    .updateTable('webhooks')
    .set((eb) => ({
      failure_count: eb('failure_count', '+', 1),
      status: eb
        .case()
        .when('failure_count', '>=', FAILURES_BEFORE_DEACTIVATION - 1)
        .then(eb.val<WebhookStatus>('inactive'))
        .else(eb.ref('status'))
        .end(),
      last_failure_at: args.now,
      updated_at: args.now,
    }))
    .where('id', '=', webhookId)
    .where('status', '=', 'active')
    .where((eb) =>
      eb.or([eb('last_failure_at', 'is', null), eb('last_failure_at', '<', args.startedAt)]),
    )
    .returning(['failure_count', 'status', 'org_id', 'url'])
    .executeTakeFirst();
  if (hook?.status === 'active') {
    const probeAt = new Date(Date.parse(args.now) + args.backoff(hook.failure_count)).toISOString();
    await db
      .updateTable('webhooks')
      .set({ probe_at: probeAt })
      .where('id', '=', webhookId)
      .execute();
  }
  return hook;
}

/**
 * What follows a deactivation by failures, in the transaction that counted the last one: the
 * organization's admin is emailed. Its pending deliveries are kept, held while it is inactive:
 * reactivating it (PATCH `status: "active"`) delivers them.
 */
export async function afterDeactivation(
  trx: Executor,
  clock: Clock,
  args: {
    webhookId: string;
    orgId: string;
    url: string;
    failures: number;
    lastError: string;
    now: string;
  },
): Promise<void> {
  const org = await trx
    .selectFrom('organizations')
    .select(['name', 'admin_email'])
    .where('id', '=', args.orgId)
    .executeTakeFirst();
  if (org) {
    const mail = webhookDeactivatedMail({
      orgId: args.orgId,
      to: org.admin_email,
      orgName: org.name,
      webhookId: args.webhookId,
      url: args.url,
      failures: args.failures,
      lastError: args.lastError,
    });
    await enqueueJob(trx, clock, 'mail', mail);
  }
}
