import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const bulkSendExamples = {
  createBulkSend: {
    body: {
      templateId: EX.tpl,
      name: 'Volunteers, spring intake',
      rows: [
        {
          signers: [{ role: 'Volunteer', name: 'Zoë Ng', email: 'zoe@example.com' }],
          values: { 'Full name': 'Zoë Ng' },
        },
        {
          signers: [
            { role: 'Volunteer', name: 'Rosalind Franklin', email: 'rosalind@example.com' },
          ],
        },
      ],
    },
    response: {
      data: {
        id: EX.bsd,
        name: 'Volunteers, spring intake',
        templateId: EX.tpl,
        status: 'queued',
        total: 2,
        sent: 0,
        failed: 0,
        createdAt: AT.created,
        updatedAt: AT.updated,
        completedAt: null,
      },
    },
  },
  listBulkSends: {
    querystring: { status: 'processing' },
    response: { data: [], meta: { count: 0, hasMore: false, nextCursor: null } },
  },
  getBulkSend: {
    response: {
      data: {
        id: EX.bsd,
        name: 'Volunteers, spring intake',
        templateId: EX.tpl,
        status: 'queued',
        total: 2,
        sent: 0,
        failed: 0,
        createdAt: AT.created,
        updatedAt: AT.updated,
        completedAt: null,
      },
    },
  },
  cancelBulkSend: {
    body: { cancelDocuments: true },
    response: {
      data: {
        id: EX.bsd,
        name: 'Volunteers, spring intake',
        templateId: EX.tpl,
        status: 'cancelled',
        total: 2,
        sent: 0,
        failed: 0,
        createdAt: AT.created,
        updatedAt: AT.updated,
        completedAt: null,
      },
    },
  },
} satisfies Record<string, OperationExample>;
