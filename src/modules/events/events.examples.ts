import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const eventExamples = {
  listEvents: {
    querystring: {
      type: 'document.completed',
      createdAfter: '2026-11-21T09:30:00.000Z',
      order: 'asc',
    },
    response: {
      data: [
        {
          id: 'evt_01jdxckf06e6dfgjn8tjqy1943',
          event: 'document.completed',
          api_version: '2026-11-21',
          created_at: AT.created,
          data: {
            id: EX.doc,
            name: 'Consulting agreement (Q1 2027)',
            status: 'completed',
            signingType: 'sequential',
            fileSize: 1097,
            expiresAt: AT.expires,
            completedAt: AT.completed,
            createdAt: AT.created,
            updatedAt: AT.updated,
            templateId: null,
            campaignId: null,
            bulkSendId: null,
            folderId: EX.fol,
            allowReassign: false,
            _count: { signers: 1, fields: 2, attachments: 0 },
          },
        },
        {
          id: 'evt_01jdxckh1qsxe13ywk1265awrq',
          event: 'document.completed',
          api_version: '2026-11-21',
          created_at: AT.created,
          data: {
            id: 'doc_01jdxckgvwwajxf6st8bq3kzfx',
            name: 'Volunteers 2026: Marie Curie',
            status: 'completed',
            signingType: 'sequential',
            fileSize: 870,
            expiresAt: null,
            completedAt: AT.completed,
            createdAt: AT.created,
            updatedAt: AT.updated,
            templateId: EX.tpl,
            campaignId: EX.cmp,
            bulkSendId: null,
            folderId: null,
            allowReassign: false,
            _count: { signers: 1, fields: 2, attachments: 0 },
          },
        },
      ],
      meta: { count: 2, hasMore: false, nextCursor: null },
    },
  },
} satisfies Record<string, OperationExample>;
