import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const webhookExamples = {
  createWebhook: {
    body: {
      url: 'https://hooks.example.com/signet',
      events: ['document.completed', 'document.declined', 'signer.completed'],
      description: 'Back office: archive signed contracts',
    },
    response: {
      data: {
        id: EX.whk,
        url: 'http://127.0.0.1:44897/hook/signet',
        events: '["document.completed","document.declined","signer.completed"]',
        status: 'active',
        description: 'Back office: archive signed contracts',
        secret: '6901e2aafbb416ad62b3f025157e98a54e4d408ec5fd86173a8cea05a3e7df86',
        failureCount: 0,
        createdAt: AT.created,
      },
    },
  },
  listWebhooks: {
    querystring: { status: 'active' },
    response: {
      data: [
        {
          id: EX.whk,
          url: 'http://127.0.0.1:44897/hook/signet',
          events: ['document.completed', 'document.declined', 'signer.completed'],
          status: 'active',
          description: 'Back office: archive signed contracts',
          failureCount: 0,
          createdAt: AT.created,
        },
        {
          id: 'whk_01jdxck4kkdptt73kbvy88m0n3',
          url: 'http://127.0.0.1:44897/hook/all',
          events: [
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
            'campaign.submission.created',
            'campaign.closed',
            'bulk_send.completed',
            'webhook.test',
          ],
          status: 'active',
          description: null,
          failureCount: 0,
          createdAt: AT.created,
        },
      ],
      meta: { count: 2, hasMore: false, nextCursor: null },
    },
  },
  getWebhook: {
    response: {
      data: {
        id: EX.whk,
        url: 'http://127.0.0.1:44897/hook/signet',
        events: ['document.completed', 'document.declined', 'signer.completed'],
        status: 'active',
        description: 'Back office: archive signed contracts',
        failureCount: 0,
        createdAt: AT.created,
      },
    },
  },
  updateWebhook: {
    body: {
      events: ['document.completed', 'document.declined', 'document.expired', 'signer.completed'],
    },
    response: {
      data: {
        id: EX.whk,
        url: 'http://127.0.0.1:44897/hook/signet',
        events: ['document.completed', 'document.declined', 'document.expired', 'signer.completed'],
        status: 'active',
        description: 'Back office: archive signed contracts',
        failureCount: 0,
        createdAt: AT.created,
      },
    },
  },
  deleteWebhook: {},
  listWebhookDeliveries: {
    querystring: { limit: 10 },
    response: {
      data: [
        {
          id: EX.dlv,
          event: 'webhook.test',
          eventId: 'evt_01jdxck56ymgdtn2ancvwn81et',
          status: 'pending',
          attemptCount: 0,
          nextAttemptAt: AT.updated,
          lastStatusCode: null,
          createdAt: AT.created,
          updatedAt: AT.updated,
          attempts: [],
        },
      ],
      meta: { count: 1, hasMore: false, nextCursor: null },
    },
  },
  retryWebhookDelivery: {
    response: {
      data: {
        id: EX.dlv,
        event: 'webhook.test',
        eventId: 'evt_01jdxck56ymgdtn2ancvwn81et',
        status: 'pending',
        attemptCount: 0,
        nextAttemptAt: AT.updated,
        lastStatusCode: null,
        createdAt: AT.created,
        updatedAt: AT.updated,
        attempts: [],
      },
    },
  },
  testWebhook: {
    response: {
      data: {
        id: EX.dlv,
        event: 'webhook.test',
        eventId: 'evt_01jdxck56ymgdtn2ancvwn81et',
        status: 'pending',
        attemptCount: 0,
        nextAttemptAt: AT.updated,
        lastStatusCode: null,
        createdAt: AT.created,
        updatedAt: AT.updated,
        attempts: [],
      },
    },
  },
  rotateWebhookSecret: {
    response: {
      data: {
        id: EX.whk,
        url: 'http://127.0.0.1:44897/hook/signet',
        events: ['document.completed', 'document.declined', 'document.expired', 'signer.completed'],
        status: 'active',
        description: 'Back office: archive signed contracts',
        failureCount: 0,
        createdAt: AT.created,
        secret: '0b218dcead7e63d23c4efc894bd2dd4648d6411f3a8c969adf0852566123a9e0',
      },
    },
  },
} satisfies Record<string, OperationExample>;
