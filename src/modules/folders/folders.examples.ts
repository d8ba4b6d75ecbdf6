import { AT, EX } from '../../http/examples.ts';
import type { OperationExample } from '../../http/operation-docs.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const folderExamples = {
  createFolder: {
    body: { name: 'Client contracts', parentId: null },
    response: {
      data: {
        id: EX.fol,
        name: 'Client contracts',
        parentId: null,
        createdAt: AT.created,
        updatedAt: AT.updated,
      },
    },
  },
  listFolders: {
    querystring: { limit: 25 },
    response: {
      data: [
        {
          id: EX.fol,
          name: 'Client contracts',
          parentId: null,
          createdAt: AT.created,
          updatedAt: AT.updated,
        },
      ],
      meta: { count: 1, hasMore: false, nextCursor: null },
    },
  },
  getFolder: {
    response: {
      data: {
        id: EX.fol,
        name: 'Client contracts',
        parentId: null,
        createdAt: AT.created,
        updatedAt: AT.updated,
      },
    },
  },
  updateFolder: {
    body: { name: 'Client contracts 2027' },
    response: {
      data: {
        id: EX.fol,
        name: 'Client contracts 2027',
        parentId: null,
        createdAt: AT.created,
        updatedAt: AT.updated,
      },
    },
  },
  deleteFolder: {},
} satisfies Record<string, OperationExample>;
