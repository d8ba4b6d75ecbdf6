/** Every event a webhook can subscribe to (docs/webhooks.md). */
export const EVENT_TYPES = [
  'document.created',
  'document.sent',
  'document.viewed',
  'document.completed',
  'document.declined',
  'document.cancelled',
  'document.expired',
  'document.deleted',
  'document.action_required',
  'signer.viewed',
  'signer.completed',
  'signer.declined',
  'signer.consented',
  'signer.reassigned',
  'campaign.submission.created',
  'campaign.closed',
  'bulk_send.completed',
  'organization.export.completed',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** `api_version` of every envelope. */
export const API_VERSION = '2026-11-21';
