import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { contentDisposition } from '../../http/content-disposition.ts';
import { requestMeta } from '../../http/request-meta.ts';
import { Data, IdParams } from '../../http/schemas.ts';
import * as service from './builder.service.ts';
import { builderExamples } from './builder.examples.ts';
import {
  BuilderFields,
  BuilderLink,
  BuilderSaveBody,
  BuilderTokenParams,
  BuilderView,
} from './builder.schemas.ts';

const tags = ['Builder'];

const LINK =
  'A link to the builder page (`PUBLIC_URL/build/{token}`), where a person drags fields onto the pages, moves and resizes them, sets their label, required, options and assignee, deletes them and saves, with mouse, touch or keyboard. The link works for one hour; a new link does not void earlier ones. With `?embed=1&origin=…` (or `<signet-builder url="…">` of `/embed.js`) the page can be framed by an origin in the organization’s `embedOrigins`, and posts `saved` after each save.';

/** What a builder link's routes refuse: a link that is not valid or has expired. */
const TOKEN_CODES = ['forbidden', 'not_found', 'invalid_state'] as const;

const PdfResponse = {
  description: 'The PDF bytes',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

/** Builder links (API key) and the builder's own API (the link's token). */
export async function builderRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.post(
    '/api/v1/documents/:id/builder-link',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'createDocumentBuilderLink',
        example: builderExamples.createDocumentBuilderLink,
        summary: 'A link to the field builder of a draft document',
        description: `${LINK} Draft only (409 \`invalid_state\`); saving after the document was sent is refused the same way.`,
        params: IdParams,
        response: { 200: Data(BuilderLink, 'The builder link') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request) => ({
      data: await service.createDocumentBuilderLink(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.post(
    '/api/v1/templates/:id/builder-link',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'createTemplateBuilderLink',
        example: builderExamples.createTemplateBuilderLink,
        summary: 'A link to the field builder of a template',
        description: `${LINK} The builder shows the template’s roles.`,
        params: IdParams,
        response: { 200: Data(BuilderLink, 'The builder link') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.createTemplateBuilderLink(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.get(
    '/api/v1/build/:token',
    {
      schema: {
        tags,
        security: [],
        operationId: 'getBuilder',
        example: builderExamples.getBuilder,
        summary: 'What the builder shows: pages, signers or roles, fields',
        description:
          'Authenticated by the builder link’s token (403 `forbidden` when it is not valid or has expired). A document that is no longer a draft: 409 `invalid_state`.',
        params: BuilderTokenParams,
        response: { 200: Data(BuilderView, 'The builder') },
        errorCodes: [...TOKEN_CODES],
      },
    },
    async (request) => ({ data: await service.getBuilderView(deps, request.params.token) }),
  );

  app.get(
    '/api/v1/build/:token/file',
    {
      schema: {
        tags,
        security: [],
        operationId: 'getBuilderFile',
        example: builderExamples.getBuilderFile,
        summary: 'The PDF the builder shows',
        description:
          'The document’s or template’s file, as signers will see it (404 `not_found` before one is uploaded). Authenticated by the builder link’s token.',
        params: BuilderTokenParams,
        response: { 200: PdfResponse },
        errorCodes: [...TOKEN_CODES, 'storage_unavailable'],
      },
    },
    async (request, reply) => {
      const file = await service.openBuilderFile(deps, request.params.token);
      reply.headers({
        'content-type': 'application/pdf',
        'content-disposition': contentDisposition('inline', file.name),
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      });
      if (file.size !== null) reply.header('content-length', file.size);
      return reply.send(file.stream);
    },
  );

  app.put(
    '/api/v1/build/:token/fields',
    {
      bodyLimit: 512 * 1024,
      schema: {
        tags,
        security: [],
        operationId: 'saveBuilderFields',
        example: builderExamples.saveBuilderFields,
        summary: 'Save the builder: the fields become exactly these',
        description:
          'Fields with the `id` of an existing field are kept and edited, the other existing fields are removed, fields without `id` are added: one change, checked by the same rules as the fields API (400 `validation_error` with a detail per problem at `body.fields.<i>`, 409 `limit_reached` past 500 fields, 409 `invalid_state` once a document was sent). A document’s audit log records each `field.added`, `field.updated` and `field.removed`. Answers every field, oldest first.',
        params: BuilderTokenParams,
        body: BuilderSaveBody,
        response: { 200: Data(BuilderFields, 'The fields, as saved') },
        errorCodes: [...TOKEN_CODES, 'limit_reached'],
      },
    },
    async (request) => ({
      data: await service.saveBuilderFields(
        deps,
        request.params.token,
        request.body.fields,
        requestMeta(request),
      ),
    }),
  );
}
