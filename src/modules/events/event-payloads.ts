import { Type, type Static, type TSchema } from 'typebox';
import { DocumentListItem } from '../documents-core/documents.schemas.ts';
import { SignerSchema } from '../documents-core/signers.schemas.ts';
import type { EventType } from './event-types.ts';

/*
 * The `data` of every event type: what emitEvent accepts (its argument is typed by these schemas)
 * and what the API reference's `webhooks` section publishes (webhooks-doc.ts), so the two cannot
 * drift apart. The document, signer and webhook events are defined here; campaigns, bulk sends
 * and exports define theirs next to the resource (campaigns/campaign-events.ts,
 * bulk-sends/bulk-send-events.ts, exports/export-events.ts) and add them to EventDataSchemas by
 * declaration merging, so this module, below them, does not import them. app.ts joins the parts
 * into the one table the API reference publishes.
 */

/** A document event: the document as a list item. */
const DocumentData = Type.Object(DocumentListItem.properties, {
  description:
    'The document as `GET /api/v1/documents` lists it (documents of a bulk send carry its `bulkSendId`, campaign submissions their `campaignId`)',
});

/** A signer event: the document, and the signer who acted. */
const SignerData = Type.Object(
  { ...DocumentListItem.properties, signer: SignerSchema },
  { description: 'The document as a list item, plus the `signer` who acted' },
);

/** The schemas of the document, signer and webhook events. */
export const CORE_EVENT_DATA = {
  'document.created': DocumentData,
  'document.sent': DocumentData,
  'document.viewed': DocumentData,
  'document.completed': DocumentData,
  'document.declined': DocumentData,
  'document.cancelled': DocumentData,
  'document.expired': DocumentData,
  'document.deleted': DocumentData,
  'document.action_required': DocumentData,
  'signer.viewed': SignerData,
  'signer.completed': SignerData,
  'signer.declined': SignerData,
  'signer.consented': Type.Object(
    {
      ...DocumentListItem.properties,
      signer: SignerSchema,
      consent: Type.Object({
        locale: Type.String({ description: 'The locale of the text the signer accepted' }),
        sha256: Type.String({ description: 'SHA-256 (hex) of the exact text accepted (UTF-8)' }),
        consentedAt: Type.String({ description: 'When (ISO 8601)' }),
      }),
    },
    {
      description:
        'The document as a list item, the `signer` who accepted the consent to electronic records and signatures, and the `consent`: locale and SHA-256 of the exact text',
    },
  ),
  'signer.reassigned': Type.Object(
    {
      ...DocumentListItem.properties,
      signer: SignerSchema,
      previous: Type.Object(
        {
          name: Type.String({ description: 'The name of the person who handed over' }),
          email: Type.String({ description: 'Their address' }),
        },
        { additionalProperties: false },
      ),
      reason: Type.String({ description: 'Why, in the words of the person who handed over' }),
    },
    {
      description:
        'The document as a list item, the `signer` (the same row, order and fields, now the new person), the `previous` person and their `reason`',
    },
  ),
  'webhook.test': Type.Object(
    {
      webhookId: Type.String({ description: 'The webhook tested (`whk_…`)' }),
      message: Type.String(),
    },
    { description: 'Sent by `POST /api/v1/webhooks/{id}/test` to that webhook only' },
  ),
} satisfies Partial<Record<EventType, TSchema>>;

type CoreEventDataSchemas = typeof CORE_EVENT_DATA;

/**
 * The schema of each event type's `data`, by type. Other modules add their event types with
 * `declare module '../events/event-payloads.ts' { interface EventDataSchemas { … } }`.
 */
export interface EventDataSchemas extends CoreEventDataSchemas {}

/** The `data` of an event of type `T`. */
export type EventData<T extends EventType> = Static<EventDataSchemas[T]>;
