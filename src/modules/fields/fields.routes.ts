import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, IdParams, NoContent, Page } from '../../http/schemas.ts';
import { actorOf } from '../documents-core/document-access.ts';
import * as service from './fields.service.ts';
import {
  FieldInput,
  FieldParams,
  FieldPatch,
  FieldSchema,
  ListFieldsQuery,
} from '../documents-core/fields.schemas.ts';
import { fieldExamples } from './fields.examples.ts';
import { ANCHOR_RULES, AnchoredFieldInput, isAnchored } from '../documents-core/anchors.ts';

/** A placed field, or (with `anchor`) fields placed at text in the file. */
// The same shape as Field without its schema id, which one response may name only once.
const { $id: _fieldId, ...fieldItem } = FieldSchema as typeof FieldSchema & { $id: string };
const FieldItem = fieldItem as typeof FieldSchema;

const FieldCreateBody = Type.Union([FieldInput, AnchoredFieldInput], { $id: 'FieldCreate' });

const tags = ['Fields'];

const RULES =
  '`x + width` and `y + height` must not exceed 100; `options` is required for `dropdown` and `radio` and must be null otherwise; ' +
  "`page` must not exceed the document's page count once a file is uploaded. Draft only (409 `invalid_state`).";

/** Signature and form fields placed on a document's pages. */
export async function fieldsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.post(
    '/api/v1/documents/:id/fields',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'addField',
        example: fieldExamples.addField,
        summary: 'Place a field on a draft document',
        description: `${RULES} A document has at most 500 fields (409 \`limit_reached\`). ${ANCHOR_RULES}`,
        params: IdParams,
        body: FieldCreateBody,
        response: {
          201: Type.Union(
            [
              Data(FieldSchema, 'The added field'),
              Data(Type.Array(FieldItem), 'The fields an anchored body placed, in page order'),
            ],
            { description: 'The added field; with `anchor`, the list of fields placed' },
          ),
        },
        errorCodes: [
          'not_found',
          'invalid_state',
          'limit_reached',
          'missing_file',
          'anchor_not_found',
        ],
      },
    },
    async (request, reply) => {
      const body = request.body;
      const actor = actorOf(request);
      if (isAnchored(body))
        return reply.code(201).send({
          data: await service.addAnchoredFields(deps, actor, request.params.id, body),
        });
      return reply.code(201).send({
        data: await service.addField(deps, actor, request.params.id, body),
      });
    },
  );

  app.get(
    '/api/v1/documents/:id/fields',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'listFields',
        example: fieldExamples.listFields,
        summary: "List a document's fields, oldest first",
        description: "The document's fields, in the order they were added.",
        params: IdParams,
        querystring: ListFieldsQuery,
        response: { 200: Page(FieldSchema, 'The page of fields') },
        errorCodes: ['not_found'],
      },
    },
    async (request) =>
      service.listDocumentFields(deps, authOf(request).orgId, request.params.id, request.query),
  );

  app.patch(
    '/api/v1/documents/:id/fields/:fieldId',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'updateField',
        example: fieldExamples.updateField,
        summary: 'Edit a field of a draft document',
        description: `The rules apply to the field as it is after the change: ${RULES}`,
        params: FieldParams,
        body: FieldPatch,
        response: { 200: Data(FieldSchema, 'The updated field') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request) => ({
      data: await service.updateField(
        deps,
        actorOf(request),
        request.params.id,
        request.params.fieldId,
        request.body,
      ),
    }),
  );

  app.delete(
    '/api/v1/documents/:id/fields/:fieldId',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'removeField',
        example: fieldExamples.removeField,
        summary: 'Remove a field from a draft document',
        description: 'Removes a field from a draft document (409 `invalid_state` once sent).',
        params: FieldParams,
        response: { 204: NoContent },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request, reply) => {
      await service.removeField(deps, actorOf(request), request.params.id, request.params.fieldId);
      return reply.code(204).send(null);
    },
  );
}
