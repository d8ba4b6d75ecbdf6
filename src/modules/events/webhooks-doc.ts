import type { TSchema } from 'typebox';
import { API_VERSION, EVENT_TYPES, type EventType } from './event-types.ts';
import { eventExamples } from './event-examples.ts';

/** What each event says happened. */
const WHEN: Record<EventType, string> = {
  'document.created':
    'A document was created (through the API, a campaign submission or a bulk send).',
  'document.sent': 'A document was sent for signature: its signers were invited.',
  'document.viewed': 'A signer opened the document (delivered with `signer.viewed`).',
  'document.completed':
    'Every signer and approver signed and the signed PDF exists: download it now.',
  'document.declined':
    'A signer declined; the document is finished (delivered with `signer.declined`).',
  'document.cancelled': 'The sender cancelled the document.',
  'document.expired': 'The document passed its `expiresAt` before everyone signed.',
  'document.deleted': 'The document was deleted.',
  'document.action_required':
    'The sender must act: an invitation bounced, identity evidence awaits review, or sealing failed. `GET /api/v1/documents/{id}` says which in `actionRequired`.',
  'signer.viewed': 'A signer opened their signing link.',
  'signer.completed':
    'A signer signed (their uploads, if any, are counted in `_count.attachments` and listed in the document detail).',
  'signer.declined': 'A signer declined to sign.',
  'signer.consented':
    "A signer accepted the organization's consent to electronic records and signatures (`requireConsent`).",
  'signer.reassigned':
    'The signer whose turn it was handed over to someone else (`allowReassign`): `signer` is the same signer row with the new person, `previous` the person who handed over.',
  'campaign.submission.created':
    'Someone signed through a campaign link: a new document, with the campaign.',
  'campaign.closed': 'A campaign stopped taking submissions.',
  'bulk_send.completed':
    'Every row of a bulk send was handled: `sent` documents went out, `failed` ones did not.',
  'organization.export.completed':
    'An export of the organization is ready: download its ZIP from `downloadUrl` within 24 hours.',
  'webhook.test': 'A test event, sent on request to one webhook.',
};

const header = (name: string, description: string, example?: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  ...(example ? { example } : {}),
});

const HEADERS = [
  header('X-Service-Event', 'The event type'),
  header(
    'X-Service-Delivery-Id',
    'The delivery id, the same on every retry of this event to this webhook: deduplicate on it',
    'dlv_01jdx7q8r9k3m8w2v9c4d7e1f0',
  ),
  header(
    'X-Service-Timestamp',
    'Unix seconds when this attempt was signed; refuse it when more than 5 minutes old',
    '1795256073',
  ),
  header(
    'X-Service-Signature',
    '`sha256=` + hex HMAC-SHA256, keyed with the webhook secret, of `"{X-Service-Timestamp}.{raw body}"`',
  ),
  header('webhook-id', 'Standard Webhooks: the delivery id'),
  header('webhook-timestamp', 'Standard Webhooks: the timestamp'),
  header(
    'webhook-signature',
    'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `"{webhook-id}.{webhook-timestamp}.{raw body}"`, same key',
  ),
];

/** A schema as JSON, with every nested schema that has an `$id` (a component of the document) replaced by a reference to it. */
function withRefs(schema: unknown, root = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withRefs(s, false));
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Record<string, unknown>;
  if (!root && typeof s.$id === 'string') return { $ref: `#/components/schemas/${s.$id}` };
  return Object.fromEntries(
    Object.entries(s)
      .filter(([k]) => k !== '$id')
      .map(([k, v]) => [k, withRefs(v, false)]),
  );
}

function envelope(type: EventType, data: TSchema) {
  return {
    type: 'object',
    required: ['id', 'event', 'api_version', 'created_at', 'data'],
    additionalProperties: false,
    properties: {
      id: {
        type: 'string',
        description: 'The delivery id (`dlv_…`), as in `X-Service-Delivery-Id`',
      },
      event: { type: 'string', enum: [type] },
      api_version: { type: 'string', enum: [API_VERSION] },
      created_at: { type: 'string', format: 'date-time', description: 'When the change happened' },
      data: withRefs(data),
    },
  };
}

/**
 * The OpenAPI 3.1 `webhooks` of the document: one POST per event type, its envelope (docs/webhooks.md)
 * with the `data` schema emitEvent is typed by (event-payloads.ts), its headers and an example
 * delivery taken from a real one.
 */
export function webhooksDocument(
  /** Each event type's `data` schema (app.ts joins event-payloads.ts and the modules' own). */
  eventData: Record<EventType, TSchema>,
): Record<string, object> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `event.${type}`,
          tags: ['Webhook events'],
          summary: type,
          description: `${WHEN[type]}\n\nA POST to every active webhook subscribed to \`${type}\`. Answer 2xx within 10 seconds; anything else is retried 8 times over about 2.5 days, with the same delivery id.`,
          security: [],
          parameters: HEADERS,
          requestBody: {
            required: true,
            description: 'The event, in the envelope every delivery has',
            content: {
              'application/json': {
                schema: envelope(type, eventData[type]),
                ...(eventExamples[type] ? { example: eventExamples[type] } : {}),
              },
            },
          },
          responses: { '2XX': { description: 'Delivered: any 2xx status (the body is ignored)' } },
        },
      },
    ]),
  );
}
