import { Type, type Static, type TSchema } from 'typebox';
import { StringEnum } from '../../http/schemas.ts';
import { DocumentListItem } from '../documents-core/documents.schemas.ts';
import { SignerSchema } from '../documents-core/signers.schemas.ts';
import { Campaign } from '../campaigns/campaigns.schemas.ts';
import { BulkSend } from '../bulk-sends/bulk-sends.schemas.ts';
import { OrganizationExport } from '../exports/exports.schemas.ts';
import type { EventType } from './event-types.ts';

/*
 * The `data` of every event type: what emitEvent accepts (its argument is typed by these schemas)
 * and what the API reference's `webhooks` section publishes (http/webhooks-doc.ts), so the two
 * cannot drift apart.
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

/** Why a campaign closed. */
export const CLOSE_REASONS = ['max_submissions', 'expired', 'manual'] as const;

export const EVENT_DATA = {
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
  'campaign.submission.created': Type.Object(
    { ...DocumentListItem.properties, campaign: Campaign },
    {
      description:
        'The submitted document as a list item, plus the `campaign` it came through (with its new `submissionCount`)',
    },
  ),
  'campaign.closed': Type.Object(
    {
      campaign: Campaign,
      reason: StringEnum(CLOSE_REASONS, {
        description:
          '`max_submissions`: it reached `maxSubmissions`; `expired`: its `expiresAt` passed; `manual`: a PATCH set its status to `closed`',
      }),
    },
    { description: 'The campaign, now `closed`, and why' },
  ),
  'bulk_send.completed': Type.Object(BulkSend.properties, {
    description: 'The bulk send as `GET /api/v1/bulk-sends/{id}` answers it, every row done',
  }),
  'organization.export.completed': Type.Object(OrganizationExport.properties, {
    description:
      'The export as `GET /api/v1/organization/exports/{id}` answers it, `completed`, with its `downloadUrl`',
  }),
  'webhook.test': Type.Object(
    {
      webhookId: Type.String({ description: 'The webhook tested (`whk_…`)' }),
      message: Type.String(),
    },
    { description: 'Sent by `POST /api/v1/webhooks/{id}/test` to that webhook only' },
  ),
} satisfies Record<EventType, TSchema>;

/** The `data` of an event of type `T`. */
export type EventData<T extends EventType> = Static<(typeof EVENT_DATA)[T]>;
