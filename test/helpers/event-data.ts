import type { EventData } from '../../src/modules/events/event-payloads.ts';

/**
 * The `data` of a document event for a document that need not exist: for tests of the delivery
 * machinery that emit events directly. Shaped like the real thing (emitEvent is typed by it).
 */
export function documentEventData(
  id: string,
  name = id,
  status: EventData<'document.completed'>['status'] = 'completed',
): EventData<'document.completed'> {
  const at = '2026-11-21T10:04:33.640Z';
  return {
    id,
    name,
    status,
    signingType: 'sequential',
    fileSize: 48213,
    expiresAt: null,
    completedAt: status === 'completed' ? at : null,
    createdAt: at,
    updatedAt: at,
    templateId: null,
    campaignId: null,
    bulkSendId: null,
    folderId: null,
    allowReassign: false,
    _count: { signers: 1, fields: 1, attachments: 0 },
  };
}
