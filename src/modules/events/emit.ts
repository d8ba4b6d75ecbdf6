import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/database.ts';
import { newId } from '../../ids.ts';
import type { EventType } from './event-types.ts';
import { prepared, preparedInsert } from '../../db/prepared.ts';

const insertEvent = preparedInsert('events', ['id', 'org_id', 'type', 'data', 'created_at']);
const activeWebhooks = prepared<{ orgId: string }, { id: string; events: string }>((db, p) =>
  db.selectFrom('webhooks').select(['id', 'events']).where('org_id', '=', p.orgId).where('status', '=', 'active'),
);

/**
 * Records an event and one pending delivery per active webhook of the organization subscribed
 * to it, inside the caller's transaction: the event exists exactly when the change does
 * (transactional outbox), and the delivery worker picks the deliveries up.
 */
export async function emitEvent(
  trx: Executor,
  clock: Clock,
  orgId: string,
  type: EventType,
  data: Record<string, unknown>,
  /** Deliver to this webhook only, subscribed or not (`POST /webhooks/{id}/test`). */
  options: { onlyWebhookId?: string } = {},
): Promise<string> {
  const event = eventRow(clock, orgId, type, data);
  const { id: eventId, created_at: now } = event;
  await insertEvent(trx, event);
  const { rows: hooks } = await activeWebhooks.execute(trx, { orgId });
  const subscribed = options.onlyWebhookId
    ? hooks.filter((h) => h.id === options.onlyWebhookId)
    : hooks.filter((h) => (JSON.parse(h.events) as string[]).includes(type));
  if (subscribed.length > 0) {
    await trx
      .insertInto('webhook_deliveries')
      .values(
        subscribed.map((h) => ({
          id: newId('dlv'),
          org_id: orgId,
          webhook_id: h.id,
          event_id: eventId,
          event_type: type,
          status: 'pending',
          attempt_count: 0,
          next_attempt_at: now,
          leased_until: null,
          last_status_code: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  }
  return eventId;
}

/** The row of an event of `type`, stamped now (emitEvent, and creates batched on PostgreSQL). */
export function eventRow(clock: Clock, orgId: string, type: EventType, data: Record<string, unknown>) {
  return { id: newId('evt'), org_id: orgId, type, data: JSON.stringify(data), created_at: clock.now().toISOString() };
}
