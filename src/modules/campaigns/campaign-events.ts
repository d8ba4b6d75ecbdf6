import { Type } from 'typebox';
import { StringEnum } from '../../http/schemas.ts';
import { DocumentListItem } from '../documents-core/documents.schemas.ts';
import { Campaign } from './campaigns.schemas.ts';

/** Why a campaign closed. */
export const CLOSE_REASONS = ['max_submissions', 'expired', 'manual'] as const;

/** The `data` of the campaign events (events/event-payloads.ts holds the others). */
export const CAMPAIGN_EVENT_DATA = {
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
};

type CampaignEventDataSchemas = typeof CAMPAIGN_EVENT_DATA;
declare module '../events/event-payloads.ts' {
  interface EventDataSchemas extends CampaignEventDataSchemas {}
}
