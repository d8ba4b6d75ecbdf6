import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, IdParams, NoContent, Page } from '../../http/schemas.ts';
import * as service from './folders.service.ts';
import {
  CreateFolderBody,
  FolderSchema,
  ListFoldersQuery,
  UpdateFolderBody,
} from './folders.schemas.ts';
import { folderExamples } from './folders.examples.ts';

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
        example: folderExamples.createFolder,
        summary: 'Create a folder',
        description: '`parentId` must be a folder of your organization (400 otherwise).',
        body: CreateFolderBody,
        response: { 201: Data(FolderSchema, 'The created folder') },
        errorCodes: ['not_found', 'invalid_state', 'limit_reached'],
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send({ data: await service.createFolder(deps, authOf(request).orgId, request.body) }),
  );

  app.get(
    '/api/v1/folders',
    {
      config: { scope: 'folders.read' },
      schema: {
        tags,
        operationId: 'listFolders',
        example: folderExamples.listFolders,
        summary: 'List folders, newest first',
        description:
          "Your organization's folders, newest first. `parentId` filters to the children of one folder.",
        querystring: ListFoldersQuery,
        response: { 200: Page(FolderSchema, 'The page of folders') },
        errorCodes: [],
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
        example: folderExamples.getFolder,
        summary: 'Get a folder',
        description: 'One folder of your organization.',
        params: IdParams,
        response: { 200: Data(FolderSchema, 'The folder') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.getFolder(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.patch(
    '/api/v1/folders/:id',
    {
      config: { scope: 'folders.write' },
      schema: {
        tags,
        operationId: 'updateFolder',
        example: folderExamples.updateFolder,
        summary: 'Rename or move a folder',
        description: 'A folder cannot be moved into itself or one of its subfolders (400).',
        params: IdParams,
        body: UpdateFolderBody,
        response: { 200: Data(FolderSchema, 'The updated folder') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request) => ({
      data: await service.updateFolder(
        deps,
        authOf(request).orgId,
        request.params.id,
        request.body,
      ),
    }),
  );

  app.delete(
    '/api/v1/folders/:id',
    {
      config: { scope: 'folders.write' },
      schema: {
        tags,
        operationId: 'deleteFolder',
        example: folderExamples.deleteFolder,
        summary: 'Delete an empty folder',
        description:
          'Refused with 409 `invalid_state` while the folder holds documents (deleted ones do not count) or subfolders; `details` gives both counts.',
        params: IdParams,
        response: { 204: NoContent },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request, reply) => {
      await service.deleteFolder(deps, authOf(request).orgId, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
