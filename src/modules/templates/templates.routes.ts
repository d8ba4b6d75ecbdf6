import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, IdParams, NoContent, Page } from '../../http/schemas.ts';
import { MAX_UPLOAD_BYTES, UploadBody, UploadTicket } from '../documents-core/documents.schemas.ts';
import { UPLOAD_URL_TTL_SECONDS } from '../documents-core/upload.service.ts';
import { createTemplateUploadTicket } from './template-upload.ts';
import * as service from './templates.service.ts';
import {
  CreateTemplateBody,
  ListTemplatesQuery,
  TemplateDetail,
  TemplateListItem,
  UpdateTemplateBody,
} from './templates.schemas.ts';
import { templateExamples } from './templates.examples.ts';

const tags = ['Templates'];

/** Templates: a reusable file with roles and fields, for documents (`templateId`) and campaigns. */
export async function templatesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.get(
    '/api/v1/templates',
    {
      config: { scope: 'templates.read' },
      schema: {
        tags,
        operationId: 'listTemplates',
        example: templateExamples.listTemplates,
        summary: 'List templates, newest first',
        description:
          "Your organization's templates, newest first. `search` matches the name case-insensitively.",
        querystring: ListTemplatesQuery,
        response: { 200: Page(TemplateListItem, 'The page of templates') },
        errorCodes: [],
      },
    },
    async (request) => service.listTemplates(deps, authOf(request).orgId, request.query),
  );

  app.post(
    '/api/v1/templates',
    {
      config: { scope: 'templates.create' },
      schema: {
        tags,
        operationId: 'createTemplate',
        example: templateExamples.createTemplate,
        summary: 'Create a template (optionally with roles and fields)',
        description:
          'Roles are shaped like signers (`name`, `order`, and an optional fixed signer `signerName`/`signerEmail`); fields like a ' +
          "document's fields, with `assignedTo` naming a role's `order`. Upload the file with `POST /api/v1/templates/{id}/upload`.",
        body: CreateTemplateBody,
        response: { 201: Data(TemplateDetail, 'The created template') },
        errorCodes: ['not_found', 'limit_reached'],
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send({ data: await service.createTemplate(deps, authOf(request).orgId, request.body) }),
  );

  app.get(
    '/api/v1/templates/:id',
    {
      config: { scope: 'templates.read' },
      schema: {
        tags,
        operationId: 'getTemplate',
        example: templateExamples.getTemplate,
        summary: 'Get a template with its roles and fields',
        description: 'A template with its roles and fields.',
        params: IdParams,
        response: { 200: Data(TemplateDetail, 'The template') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.getTemplate(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.patch(
    '/api/v1/templates/:id',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'updateTemplate',
        example: templateExamples.updateTemplate,
        summary: 'Edit a template; documents already made from it do not change',
        description:
          'Renames a template or changes its description. Documents and campaigns already made from it keep what they copied.',
        params: IdParams,
        body: UpdateTemplateBody,
        response: { 200: Data(TemplateDetail, 'The updated template') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.updateTemplate(
        deps,
        authOf(request).orgId,
        request.params.id,
        request.body,
      ),
    }),
  );

  app.post(
    '/api/v1/templates/:id/upload',
    {
      config: { scope: 'templates.write' },
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        operationId: 'requestTemplateUpload',
        example: templateExamples.requestTemplateUpload,
        summary: "Step 1 of the template's upload: get a signed URL to PUT the file to",
        description:
          `The same two steps, body, limits and answers as a document's upload (\`requestDocumentUpload\`): \`uploadUrl\` is valid ${UPLOAD_URL_TTL_SECONDS} seconds, ` +
          `bound to this template, \`contentType\` and the size limit (the declared \`fileSize\`, else ${MAX_UPLOAD_BYTES} bytes); a declared \`fileSize\` over the ` +
          'limit is 413. Step 2: PUT the bytes to `uploadUrl` with the returned `headers` (`uploadDocumentFile`); it answers with the template, its ' +
          "`fileSize`, `pageCount` and `documentHash` set. The URL is always `PUBLIC_URL/uploads/{token}`, Signet's own, also with `STORAGE=s3`: " +
          "a template's file is checked before it becomes the file every campaign submission and every document made from the template gets. " +
          'Each upload replaces the file; documents made earlier keep their own copy. Allowed while campaigns use the template: their next submissions get the new file.',
        params: IdParams,
        body: UploadBody,
        response: {
          200: { ...Data(UploadTicket), description: 'Where and how to send the bytes' },
        },
        errorCodes: ['not_found', 'storage_unavailable'],
      },
    },
    async (request) => ({
      data: await createTemplateUploadTicket(
        deps,
        authOf(request).orgId,
        request.params.id,
        request.body,
      ),
    }),
  );

  app.delete(
    '/api/v1/templates/:id',
    {
      config: { scope: 'templates.delete' },
      schema: {
        tags,
        operationId: 'deleteTemplate',
        example: templateExamples.deleteTemplate,
        summary: 'Delete a template for good',
        description:
          'Documents made from it keep their copies. Refused (409 `invalid_state`) while a campaign uses the template.',
        params: IdParams,
        response: { 204: NoContent },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request, reply) => {
      await service.deleteTemplate(deps, authOf(request).orgId, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
