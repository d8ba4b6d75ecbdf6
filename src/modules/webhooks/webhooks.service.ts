import type { AppDeps } from '../../deps.ts';
import { sealText } from '../../secret-key.ts';
import type { Config } from '../../config.ts';
import type { Executor, WebhookRow } from '../../db/database.ts';
import { AppError, invalidState, notFound } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import { emitEvent } from '../events/emit.ts';
import * as repo from './webhooks.repository.ts';
import { toCreatedWebhook, toDelivery, toWebhook } from './webhooks.mappers.ts';
import type {
  CreateWebhookInput,
  ListDeliveriesQueryT,
  ListWebhooksQueryT,
  UpdateWebhookInput,
} from './webhooks.schemas.ts';
import { MAX_WEBHOOKS_PER_ORG } from './webhooks.schemas.ts';
import { newWebhookSecret } from './signature.ts';
import { addressPolicy, checkWebhookUrl } from './ssrf.ts';
import { isDelivering, moveWebhook } from './webhook-status.ts';
import { probeNow, releaseDeliveries } from './deliveries.repository.ts';
import { cancelPendingDeliveries, requeueDelivery } from './delivery-status.ts';

/** Refuses a URL that is not http(s), not HTTPS in production, or whose host is or resolves to a blocked address. */
async function requireDeliverableUrl(config: Config, url: string): Promise<void> {
  const reason = await checkWebhookUrl(url, addressPolicy(config), config.production);
  if (reason)
    throw new AppError('validation_error', `body.url ${reason}`, [
      { path: 'body.url', message: reason },
    ]);
}

async function requireWebhook(db: Executor, orgId: string, id: string): Promise<WebhookRow> {
  const row = await repo.findWebhook(db, orgId, id);
  if (!row) throw notFound('Webhook');
  return row;
}

/**
 * Registers a webhook (active, failureCount 0) with a fresh secret, returned only here.
 * At most 10 per organization, also under concurrent requests.
 */
export async function createWebhook(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock' | 'webhookKey'>,
  orgId: string,
  input: CreateWebhookInput,
) {
  await requireDeliverableUrl(deps.config, input.url);
  const now = deps.clock.now().toISOString();
  // Stored encrypted; the plaintext is answered once, here.
  const secret = newWebhookSecret();
  const row: WebhookRow = {
    id: newId('whk'),
    org_id: orgId,
    url: input.url,
    events: JSON.stringify(input.events),
    status: 'active',
    description: input.description ?? null,
    secret,
    failure_count: 0,
    probe_at: null,
    last_failure_at: null,
    created_at: now,
    updated_at: now,
  };
  await deps.db.transaction().execute(async (trx) => {
    await repo.lockOrganization(trx, orgId);
    if ((await repo.countWebhooks(trx, orgId)) >= MAX_WEBHOOKS_PER_ORG) {
      throw new AppError(
        'limit_reached',
        `An organization can register at most ${MAX_WEBHOOKS_PER_ORG} webhooks; delete one first`,
      );
    }
    await repo.insertWebhook(trx, { ...row, secret: sealText(deps.webhookKey, secret) });
  });
  return toCreatedWebhook(row);
}

export async function listWebhooks(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  query: ListWebhooksQueryT,
) {
  const { rows, meta } = await repo.listWebhooks(
    deps.db,
    orgId,
    { status: query.status },
    { list: 'webhooks', limit: query.limit, cursor: query.cursor },
  );
  return { data: rows.map(toWebhook), meta };
}

export async function getWebhook(deps: Pick<AppDeps, 'db'>, orgId: string, id: string) {
  return toWebhook(await requireWebhook(deps.db, orgId, id));
}

/**
 * Changes url (checked like at registration), events, description or status. Deactivation holds
 * the pending deliveries (none is attempted, none is dropped); `status: "active"` reactivates,
 * resets `failureCount` and its backoff, and makes the held deliveries due at once.
 */
export async function updateWebhook(
  deps: Pick<AppDeps, 'config' | 'db' | 'clock'>,
  orgId: string,
  id: string,
  input: UpdateWebhookInput,
) {
  await requireWebhook(deps.db, orgId, id);
  if (input.url !== undefined) await requireDeliverableUrl(deps.config, input.url);
  const now = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const changes: Parameters<typeof repo.updateWebhook>[2] = { updated_at: now };
    if (input.url !== undefined) changes.url = input.url;
    if (input.events !== undefined) changes.events = JSON.stringify(input.events);
    if (input.description !== undefined) changes.description = input.description;
    if (input.status === 'active')
      Object.assign(changes, { failure_count: 0, probe_at: null, last_failure_at: null });
    // The webhook row is locked before its deliveries, the order the delivery worker uses too.
    await repo.updateWebhook(trx, id, changes);
    if (input.status !== undefined) await moveWebhook(trx, id, input.status, {});
    if (input.status === 'active') await releaseDeliveries(trx, id, now);
    return toWebhook(await requireWebhook(trx, orgId, id));
  });
}

/** Deletes the webhook; its pending deliveries are cancelled (their log stays with the rows). */
export async function deleteWebhook(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  id: string,
): Promise<void> {
  await requireWebhook(deps.db, orgId, id);
  await deps.db.transaction().execute(async (trx) => {
    await repo.deleteWebhook(trx, id);
    await cancelPendingDeliveries(trx, id, deps.clock.now().toISOString());
  });
}

/** Replaces the secret at once (deliveries signed from now on use the new one) and returns it, once. */
export async function rotateSecret(
  deps: Pick<AppDeps, 'db' | 'clock' | 'webhookKey'>,
  orgId: string,
  id: string,
) {
  await requireWebhook(deps.db, orgId, id);
  const secret = newWebhookSecret();
  await repo.updateWebhook(deps.db, id, {
    secret: sealText(deps.webhookKey, secret),
    updated_at: deps.clock.now().toISOString(),
  });
  return { ...toWebhook(await requireWebhook(deps.db, orgId, id)), secret };
}

/** The delivery log of a webhook, newest first, each delivery with its attempts. */
export async function listDeliveries(
  deps: Pick<AppDeps, 'db'>,
  orgId: string,
  id: string,
  query: ListDeliveriesQueryT,
) {
  await requireWebhook(deps.db, orgId, id);
  const { rows, meta } = await repo.listDeliveries(
    deps.db,
    id,
    { status: query.status },
    { list: `deliveries:${id}`, limit: query.limit, cursor: query.cursor },
  );
  const attempts = await repo.attemptsOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return { data: rows.map((r) => toDelivery(r, attempts.get(r.id) ?? [])), meta };
}

async function deliveryView(db: Executor, webhookId: string, deliveryId: string) {
  const row = await repo.findDelivery(db, webhookId, deliveryId);
  if (!row) throw notFound('Delivery');
  const attempts = await repo.attemptsOf(db, [row.id]);
  return toDelivery(row, attempts.get(row.id) ?? []);
}

function requireActive(hook: WebhookRow, action: string): void {
  if (!isDelivering(hook))
    throw invalidState(
      `Cannot ${action}: the webhook is inactive; reactivate it with PATCH {"status": "active"} first`,
    );
}

/**
 * Queues one more attempt of a delivery now, with the same delivery id. Automatic retries then
 * continue from its attempt count (a delivery whose retries were exhausted gets this one attempt).
 */
export async function retryDelivery(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  id: string,
  deliveryId: string,
) {
  const hook = await requireWebhook(deps.db, orgId, id);
  if (!(await repo.findDelivery(deps.db, id, deliveryId))) throw notFound('Delivery');
  requireActive(hook, 'retry a delivery');
  const now = deps.clock.now().toISOString();
  await requeueDelivery(deps.db, deliveryId, now);
  // A failing webhook waits for its next probe; asked for by hand, that probe goes now.
  await probeNow(deps.db, id, now);
  return deliveryView(deps.db, id, deliveryId);
}

/** Emits a `webhook.test` event delivered to this webhook only, whatever it subscribes to. */
export async function sendTestEvent(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  orgId: string,
  id: string,
) {
  const hook = await requireWebhook(deps.db, orgId, id);
  requireActive(hook, 'send a test event');
  return deps.db.transaction().execute(async (trx) => {
    const eventId = await emitEvent(
      trx,
      deps.clock,
      orgId,
      'webhook.test',
      { webhookId: id, message: 'Test event sent with POST /api/v1/webhooks/{id}/test' },
      { onlyWebhookId: id },
    );
    const delivery = await repo.findDeliveryOfEvent(trx, id, eventId);
    // The webhook was deactivated between the check and the event: nothing was queued.
    if (!delivery) throw invalidState('Cannot send a test event: the webhook is inactive');
    await probeNow(trx, id, deps.clock.now().toISOString());
    return deliveryView(trx, id, delivery.id);
  });
}
