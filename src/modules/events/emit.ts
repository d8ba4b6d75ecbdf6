import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/database.ts';
import { newId } from '../../ids.ts';
import type { EventType } from './event-types.ts';
import type { EventData } from './event-payloads.ts';
import { prepared, preparedInsert } from '../../db/prepared.ts';

const insertEvent = preparedInsert('events', ['id', 'org_id', 'type', 'data', 'created_at']);
const activeWebhooks = prepared<{ orgId: string }, { id: string; events: string }>((db, p) =>
  db
    .selectFrom('webhooks')
    .select(['id', 'events'])
    .where('org_id', '=', p.orgId)
    .where('status', '=', 'active'),
);

/**
 * Records an event and one pending delivery per active webhook of the organization subscribed
 * to it, inside the caller's transaction: the event exists exactly when the change does
 * (transactional outbox), and the delivery worker picks the deliveries up.
 */
export async function emitEvent<T extends EventType>(
  trx: Executor,
  clock: Clock,
  orgId: string,
  type: T,
  /** Typed by the event's schema (event-payloads.ts), the one the API reference publishes. */
  data: EventData<T>,
  /** Deliver to this webhook only, subscribed or not (`POST /webhooks/{id}/test`). */
  options: { onlyWebhookId?: string } = {},
): Promise<string> {
  return (await emitEvents(trx, clock, orgId, type, [data], options))[0];
}

/** emitEvent for several events of one type and organization (one insert of events, one of deliveries); their ids, in order. */
export async function emitEvents<T extends EventType>(
  trx: Executor,
  clock: Clock,
  orgId: string,
  type: T,
  datas: EventData<T>[],
  options: { onlyWebhookId?: string } = {},
): Promise<string[]> {
  const events = datas.map((data) => eventRow(clock, orgId, type, data));
  if (events.length === 0) return [];
  if (events.length === 1) await insertEvent(trx, events[0]);
  else await trx.insertInto('events').values(events).execute();
  const { rows: hooks } = await activeWebhooks.execute(trx, { orgId });
  const subscribed = options.onlyWebhookId
    ? hooks.filter((h) => h.id === options.onlyWebhookId)
    : hooks.filter((h) => (JSON.parse(h.events) as string[]).includes(type)); // DELIVERIES_OF_EVENTS_PG says the same in SQL
  if (subscribed.length > 0) {
    await trx
      .insertInto('webhook_deliveries')
      .values(
        events.flatMap(({ id: eventId, created_at: now }) =>
          subscribed.map((h) => ({
            id: deliveryId(eventId, h.id),
            org_id: orgId,
            webhook_id: h.id,
            event_id: eventId,
            event_type: type,
            status: 'pending' as const,
            attempt_count: 0,
            next_attempt_at: now,
            leased_until: null,
            last_status_code: null,
            created_at: now,
            updated_at: now,
          })),
        ),
      )
      .execute();
  }
  return events.map((e) => e.id);
}

/*
 * The fan-out of an event to webhook deliveries has one home, here, in two forms side by side:
 * emitEvent above, and DELIVERIES_OF_EVENTS_PG below for creates batched into one statement on
 * PostgreSQL (db/pg-insert-batch.ts). A delivery goes to each active webhook of the event's
 * organization subscribed to its type, and its id is derived from the event's and the webhook's:
 * the event's time (so deliveries sort in time as newId's ids do) then 16 hexadecimal digits of the
 * MD5 of both ids (hexadecimal digits are of newId's alphabet). The same event and webhook always
 * make the same delivery id, on either path.
 */

/** The id of the delivery of event `eventId` to webhook `webhookId`. */
export function deliveryId(eventId: string, webhookId: string): string {
  return `dlv_${eventId.slice(4, 14)}${createHash('md5')
    .update(eventId + webhookId)
    .digest('hex')
    .slice(0, 16)}`;
}

/**
 * PostgreSQL: the deliveries of the events a statement has just inserted (its CTE `events_`
 * returning id, org_id, type, created_at), as emitEvent makes them.
 */
export const DELIVERIES_OF_EVENTS_PG = `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, status, attempt_count, next_attempt_at, leased_until, last_status_code, created_at, updated_at)
select 'dlv_' || substr(e.id, 5, 10) || substr(md5(e.id || w.id), 1, 16), w.org_id, w.id, e.id, e.type,
  'pending', 0, e.created_at, null, null, e.created_at, e.created_at
from events_ e join webhooks w on w.org_id = e.org_id
where w.status = 'active' and w.events::jsonb @> jsonb_build_array(e.type)`;

/** The row of an event of `type`, stamped now (emitEvent, and creates batched on PostgreSQL). */
export function eventRow<T extends EventType>(
  clock: Clock,
  orgId: string,
  type: T,
  data: EventData<T>,
) {
  return {
    id: newId('evt'),
    org_id: orgId,
    type,
    data: JSON.stringify(data),
    created_at: clock.now().toISOString(),
  };
}
