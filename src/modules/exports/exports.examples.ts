import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

const queued = {
  id: EX.exp,
  status: 'queued',
  totalDocuments: 42,
  processedDocuments: 0,
  fileSize: null,
  downloadUrl: null,
  expiresAt: null,
  error: null,
  createdAt: AT.created,
  updatedAt: AT.created,
  completedAt: null,
};

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const exportExamples = {
  createOrganizationExport: { body: {}, response: { data: queued } },
  getOrganizationExport: {
    response: {
      data: {
        ...queued,
        status: 'completed',
        processedDocuments: 42,
        fileSize: 18_734_112,
        downloadUrl: `https://sign.example.com/api/v1/organization/exports/${EX.exp}/download?token=1795342473640.q8Zr3kVd2mXc7LwP1nBt9yHs4fJe6aGu0oRi5vKxTqE`,
        expiresAt: '2026-11-22T10:04:33.640Z',
        updatedAt: AT.completed,
        completedAt: AT.completed,
      },
    },
  },
  downloadOrganizationExport: {
    querystring: { token: '1795342473640.q8Zr3kVd2mXc7LwP1nBt9yHs4fJe6aGu0oRi5vKxTqE' },
  },
} satisfies Record<string, OperationExample>;
