import { Type, type Static } from 'typebox';
import { PageQuery, StringEnum } from '../../http/schemas.ts';
import { API_VERSION, EVENT_TYPES } from './event-types.ts';

/** An event as `GET /api/v1/events` lists it: the envelope of a webhook delivery, with the event's own id. */
export const EventEnvelope = Type.Object(
  {
    id: Type.String({
      description:
        'The event (`evt_…`); a webhook delivery of it carries the delivery id (`dlv_…`) here instead',
    }),
    event: Type.String({ description: 'Event type, e.g. `document.completed`' }),
    api_version: Type.String({ description: `Always \`${API_VERSION}\`` }),
    created_at: Type.String({ format: 'date-time', description: 'When the change happened' }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The document list item (plus `signer` or `campaign`; documents of a bulk send carry its `bulkSendId`), or for `bulk_send.completed` the bulk send (`GET /api/v1/bulk-sends/{id}`), as delivered',
      },
    ),
  },
  {
    $id: 'Event',
    description: 'An event, in the same envelope as a webhook delivery',
    examples: [
      {
        id: 'evt_01jdx4a7c9e2g4j6m8p0r2t4v6',
        event: 'document.completed',
        api_version: API_VERSION,
        created_at: '2026-11-22T10:15:03.412Z',
        data: {
          id: 'doc_01jdx3m4n5p6q7r8s9t0v1w2x3',
          name: 'Consulting agreement',
          status: 'completed',
          campaignId: null,
        },
      },
    ],
  },
);
export type EventEnvelopeT = Static<typeof EventEnvelope>;

export const ListEventsQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(StringEnum(EVENT_TYPES, { description: 'Only events of this type' })),
    createdAfter: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Only events after this time (exclusive), e.g. the `created_at` of the last event you handled',
      }),
    ),
    order: Type.Optional(
      StringEnum(['desc', 'asc'] as const, {
        description: '`desc` (newest first, default) or `asc` (oldest first: to replay in order)',
        default: 'desc',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListEventsQueryT = Static<typeof ListEventsQuery>;
