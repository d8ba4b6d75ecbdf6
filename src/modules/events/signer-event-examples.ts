import { AT } from '../../http/examples.ts';
import type { EventType } from './event-types.ts';

/** A delivery of the signer events that carry more than the signer (test/docs/examples-live.test.ts checks the shape). */
export const signerEventExamples: Partial<Record<EventType, unknown>> = {
  'signer.reassigned': {
    id: 'dlv_01jdxckfpd784578337ce9e5d3',
    event: 'signer.reassigned',
    api_version: '2026-11-21',
    created_at: AT.created,
    data: {
      id: 'doc_01jdxckfffq2sg2baavnrw0t7y',
      name: 'Service agreement',
      status: 'pending',
      signingType: 'sequential',
      fileSize: 1083,
      expiresAt: null,
      completedAt: null,
      createdAt: AT.created,
      updatedAt: AT.updated,
      templateId: null,
      campaignId: null,
      bulkSendId: null,
      folderId: null,
      allowReassign: true,
      _count: { signers: 1, fields: 1, attachments: 0 },
      signer: {
        id: 'sgn_01jdxckfffq2sg2baavnrw0t7z',
        name: 'Grace Hopper',
        email: 'grace@example.com',
        phone: null,
        otpMethod: null,
        role: 'signer',
        status: 'sent',
        order: 0,
        group: 0,
        signedAt: null,
        locale: null,
        delivery: 'email',
        createdAt: AT.created,
      },
      previous: { name: 'Ada Lovelace', email: 'ada@example.com' },
      reason: 'Grace signs contracts for our team while I am on leave',
    },
  },
};
