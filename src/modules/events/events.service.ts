import type { Executor } from '../../db/database.ts';
import { paginate } from '../../http/pagination.ts';
import { API_VERSION } from './event-types.ts';
import type { EventEnvelopeT, ListEventsQueryT } from './events.schemas.ts';

/**
 * The organization's events, newest first unless `order=asc`, in the envelope webhook deliveries
 * carry: what a receiver that was down (or has no webhook) reads to catch up. Kept
 * `WEBHOOK_LOG_DAYS` days (event-retention.ts).
 */
export async function listEvents(db: Executor, orgId: string, query: ListEventsQueryT) {
  let q = db
    .selectFrom('events')
    .select(['id', 'type', 'data', 'created_at'])
    .where('org_id', '=', orgId);
  if (query.type) q = q.where('type', '=', query.type);
  // Stored timestamps are ISO strings in UTC with milliseconds, so text order is time order once the
  // filter is written the same way.
  if (query.createdAfter)
    q = q.where('created_at', '>', new Date(query.createdAfter).toISOString());
  const order = query.order === 'asc' ? 'asc' : 'desc';
  const { rows, meta } = await paginate(q, {
    list: `events:${order}`,
    limit: query.limit,
    cursor: query.cursor,
    direction: order,
  });
  return { data: rows.map(toEnvelope), meta };
}

function toEnvelope(row: {
  id: string;
  type: string;
  data: string;
  created_at: string;
}): EventEnvelopeT {
  return {
    id: row.id,
    event: row.type,
    api_version: API_VERSION,
    created_at: row.created_at,
    data: JSON.parse(row.data) as EventEnvelopeT['data'],
  };
}
