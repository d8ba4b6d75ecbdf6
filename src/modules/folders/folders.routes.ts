import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, errors, IdParams, NoContent, Page } from '../../http/schemas.ts';
import * as service from './folders.service.ts';
import { CreateFolderBody, FolderSchema, ListFoldersQuery, UpdateFolderBody } from './folders.schemas.ts';

const tags = ['Folders'];

/** Folders organize documents (a document's `folderId`); they nest through `parentId`. */
export async function foldersRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.post(
    '/api/v1/folders',
    {
      config: { scope: 'folders.write' },
      schema: {
        tags,
        operationId: 'createFolder',
        summary: 'Create a folder',
        description: '`parentId` must be a folder of your organization (400 otherwise).',
        body: CreateFolderBody,
        response: { 201: Data(FolderSchema), ...errors(400, 409, 413) },
      },
    },
    async (request, reply) => reply.code(201).send({ data: await service.createFolder(deps, authOf(request).orgId, request.body) }),
  );

  app.get(
    '/api/v1/folders',
    {
      config: { scope: 'folders.read' },
      schema: {
        tags,
        operationId: 'listFolders',
        summary: 'List folders, newest first',
        querystring: ListFoldersQuery,
        response: { 200: Page(FolderSchema), ...errors(400) },
      },
    },
    async (request) => service.listFolders(deps, authOf(request).orgId, request.query),
  );

  app.get(
    '/api/v1/folders/:id',
    {
      config: { scope: 'folders.read' },
      schema: {
        tags,
        operationId: 'getFolder',
        summary: 'Get a folder',
        params: IdParams,
        response: { 200: Data(FolderSchema), ...errors(400, 404) },
      },
    },
    async (request) => ({ data: await service.getFolder(deps, authOf(request).orgId, request.params.id) }),
  );

  app.patch(
    '/api/v1/folders/:id',
    {
      config: { scope: 'folders.write' },
      schema: {
        tags,
        operationId: 'updateFolder',
        summary: 'Rename or move a folder',
        description: 'A folder cannot be moved into itself or one of its subfolders (400).',
        params: IdParams,
        body: UpdateFolderBody,
        response: { 200: Data(FolderSchema), ...errors(400, 404, 413) },
      },
    },
    async (request) => ({ data: await service.updateFolder(deps, authOf(request).orgId, request.params.id, request.body) }),
  );

  app.delete(
    '/api/v1/folders/:id',
    {
      config: { scope: 'folders.write' },
      schema: {
        tags,
        operationId: 'deleteFolder',
        summary: 'Delete an empty folder',
        description:
          'Refused with 409 `invalid_state` while the folder holds documents (deleted ones do not count) or subfolders; `details` gives both counts.',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 404, 409) },
      },
    },
    async (request, reply) => {
      await service.deleteFolder(deps, authOf(request).orgId, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
