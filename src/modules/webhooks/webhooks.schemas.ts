import { Type, type Static } from 'typebox';
import { WEBHOOK_STATUSES } from '../../db/database.ts';
import {
  Id,
  Nullable,
  NullableTimestamp,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.ts';
import { EVENT_TYPES } from '../events/event-types.ts';
import { DELIVERY_STATUSES } from './delivery-status.ts';

/** docs/limits.md. */
export const MAX_WEBHOOKS_PER_ORG = 10;
export const FAILURES_BEFORE_DEACTIVATION = 20;

const WebhookStatus = StringEnum(WEBHOOK_STATUSES);
const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'http(s) URL, at most 2000 characters; HTTPS when the server runs in production. Refused when its host is, or resolves to, a private, loopback, link-local or otherwise non-public address.',
});
const Events = Type.Array(StringEnum(EVENT_TYPES), {
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  description: `1-50 distinct event types: ${EVENT_TYPES.join(', ')}`,
});
const Description = Nullable(Type.String({ maxLength: 500 }));
const Secret = Type.String({
  minLength: 64,
  maxLength: 64,
  description: '64 hex characters; HMAC key of the delivery signatures. Shown only here.',
});

const common = {
  id: Id('whk'),
  url: Type.String(),
  status: WebhookStatus,
  description: Nullable(Type.String()),
  failureCount: Type.Integer({
    description:
      'Consecutive failed attempts; 0 after any success. At 20 the webhook becomes inactive.',
  }),
  createdAt: Timestamp,
};

/** A webhook as read back: never its secret. */
export const Webhook = Type.Object(
  {
    id: common.id,
    url: common.url,
    events: Type.Array(Type.String()),
    status: common.status,
    description: common.description,
    failureCount: common.failureCount,
    createdAt: common.createdAt,
  },
  { $id: 'Webhook' },
);
export type WebhookT = Static<typeof Webhook>;

/** The create response: the API gives `events` as a string holding a JSON array there, and the secret once. */
export const CreatedWebhook = Type.Object({
  id: common.id,
  url: common.url,
  events: Type.String({
    description:
      'The subscribed event types as a serialized JSON array, e.g. `["document.completed"]` (only in this response)',
  }),
  status: common.status,
  description: common.description,
  secret: Secret,
  failureCount: common.failureCount,
  createdAt: common.createdAt,
});
export type CreatedWebhookT = Static<typeof CreatedWebhook>;

/** The webhook with its new secret, answered once by rotate-secret. */
export const WebhookWithSecret = Type.Object({ ...Webhook.properties, secret: Secret });

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    status: Type.Optional(WebhookStatus),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

export const ListWebhooksQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(WebhookStatus) },
  { additionalProperties: false },
);
export type ListWebhooksQueryT = Static<typeof ListWebhooksQuery>;

const Attempt = Type.Object({
  id: Type.String(),
  attemptedAt: Timestamp,
  statusCode: Nullable(
    Type.Integer({
      description:
        'HTTP status of the response; null when none came (timeout, refused, DNS, TLS, blocked)',
    }),
  ),
  durationMs: Type.Integer(),
  error: Nullable(
    Type.String({ description: 'Why the attempt failed; null when it succeeded (2xx)' }),
  ),
  responseBody: Nullable(Type.String({ description: 'First 1 KB of the response body' })),
});

export const Delivery = Type.Object(
  {
    id: Id('dlv'),
    event: Type.String({ description: 'Event type' }),
    eventId: Id('evt'),
    status: StringEnum(DELIVERY_STATUSES, {
      description:
        '`pending` (queued, retrying, or held while the webhook is failing or inactive), `succeeded`, `failed` (retries exhausted) or `cancelled` (webhook deleted)',
    }),
    attemptCount: Type.Integer(),
    nextAttemptAt: NullableTimestamp,
    lastStatusCode: Nullable(Type.Integer()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    attempts: Type.Array(Attempt, { description: 'Every attempt, oldest first' }),
  },
  { $id: 'WebhookDelivery' },
);
export type DeliveryT = Static<typeof Delivery>;

export const ListDeliveriesQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(StringEnum(DELIVERY_STATUSES)) },
  { additionalProperties: false },
);
export type ListDeliveriesQueryT = Static<typeof ListDeliveriesQuery>;

export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});
