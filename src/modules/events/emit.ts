import type { Clock } from '../../clock.ts';
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { InsertPart } from '../../db/insert-at-once.ts';
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
  const now = clock.now().toISOString();
  const eventId = newId('evt');
  await insertEvent(trx, { id: eventId, org_id: orgId, type, data: JSON.stringify(data), created_at: now });
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

/**
 * PostgreSQL: emitEvent as parts of a caller's single statement, atomic with its other inserts
 * without a transaction: the event, and its deliveries, which the database selects from the
 * organization's active webhooks subscribed to the type (instead of a round trip to read them).
 * A delivery's id is the event's time followed by 16 hexadecimal digits of the MD5 of the event's
 * and the webhook's ids: time-ordered and shaped like newId's (hexadecimal digits are of its
 * alphabet), and unique per event and webhook.
 */
export function eventInserts(clock: Clock, orgId: string, type: EventType, data: Record<string, unknown>): InsertPart[] {
  const now = clock.now().toISOString();
  const eventId = newId('evt');
  const time = eventId.slice(4, 14);
  return [
    (qc) => qc.insertInto('events').values({ id: eventId, org_id: orgId, type, data: JSON.stringify(data), created_at: now }),
    (qc) =>
      qc
        .insertInto('webhook_deliveries')
        .columns(['id', 'org_id', 'webhook_id', 'event_id', 'event_type', 'status', 'attempt_count', 'next_attempt_at', 'leased_until', 'last_status_code', 'created_at', 'updated_at'])
        .expression(
          sql`select 'dlv_' || ${time}::text || substr(md5(${eventId}::text || w.id), 1, 16), w.org_id, w.id, ${eventId}::text, ${type}::text,
            'pending', 0, ${now}::text, null::text, null::integer, ${now}::text, ${now}::text
            from webhooks w where w.org_id = ${orgId} and w.status = 'active' and w.events::jsonb @> jsonb_build_array(${type}::text)`,
        ),
  ];
}
