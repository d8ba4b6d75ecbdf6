import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ANCHOR_RULES, AnchoredFieldInput, isAnchored } from '../documents-core/anchors.ts';
import { authOf } from '../../http/auth.ts';
import { Data, IdParams, NoContent, Page } from '../../http/schemas.ts';
import { FieldInput, FieldPatch } from '../documents-core/fields.schemas.ts';
import * as service from './template-parts.service.ts';
import {
  ListPartsQuery,
  RoleInput,
  RoleParams,
  RolePatch,
  RoleSchema,
  TemplateFieldParams,
  TemplateFieldSchema,
} from './templates.schemas.ts';
import { templatePartExamples } from './template-parts.examples.ts';

const tags = ['Templates'];

// The same shape as TemplateField without its schema id, which one response may name only once.
const { $id: _fieldId, ...fieldItem } = TemplateFieldSchema as typeof TemplateFieldSchema & {
  $id: string;
};
const FieldItem = fieldItem as typeof TemplateFieldSchema;
const TemplateFieldCreateBody = Type.Union([FieldInput, AnchoredFieldInput], {
  $id: 'TemplateFieldCreate',
});

const FIELD_RULES =
  '`x + width` and `y + height` must not exceed 100; `options` is required for `dropdown` and `radio` and must be null otherwise; ' +
  "`page` must not exceed the template's page count once a file is uploaded. `assignedTo` is a role's `order`.";

/** The roles and fields of a template. */
export async function templatePartsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;
  const orgOf = (request: Parameters<typeof authOf>[0]) => authOf(request).orgId;

  app.post(
    '/api/v1/templates/:id/roles',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'addTemplateRole',
        example: templatePartExamples.addTemplateRole,
        summary: 'Add a signing role to a template',
        description:
          'A role with `signerEmail` has a fixed signer, added to every document made from the template (`signerName` defaults to the role name). ' +
          'A template has at most 50 roles (409 `limit_reached`).',
        params: IdParams,
        body: RoleInput,
        response: { 201: Data(RoleSchema, 'The added role') },
        errorCodes: ['not_found', 'limit_reached'],
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await service.addRole(deps, orgOf(request), request.params.id, request.body),
      }),
  );

  app.get(
    '/api/v1/templates/:id/roles',
    {
      config: { scope: 'templates.read' },
      schema: {
        tags,
        operationId: 'listTemplateRoles',
        example: templatePartExamples.listTemplateRoles,
        summary: "List a template's roles in signing order",
        description: "The template's roles, lowest `order` first.",
        params: IdParams,
        querystring: ListPartsQuery,
        response: { 200: Page(RoleSchema, 'The page of roles') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => service.listRoles(deps, orgOf(request), request.params.id, request.query),
  );

  app.patch(
    '/api/v1/templates/:id/roles/:roleId',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'updateTemplateRole',
        example: templatePartExamples.updateTemplateRole,
        summary: 'Edit a role; its fields follow a new order',
        description:
          'Renames a role or sets its fixed signer (`signerName`, `signerEmail`; null clears them).',
        params: RoleParams,
        body: RolePatch,
        response: { 200: Data(RoleSchema, 'The updated role') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.updateRole(
        deps,
        orgOf(request),
        request.params.id,
        request.params.roleId,
        request.body,
      ),
    }),
  );

  app.delete(
    '/api/v1/templates/:id/roles/:roleId',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'removeTemplateRole',
        example: templatePartExamples.removeTemplateRole,
        summary: 'Remove a role (its fields stay, assigned to its order)',
        description: 'Removes a role from the template.',
        params: RoleParams,
        response: { 204: NoContent },
        errorCodes: ['not_found'],
      },
    },
    async (request, reply) => {
      await service.removeRole(deps, orgOf(request), request.params.id, request.params.roleId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/templates/:id/fields',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'addTemplateField',
        example: templatePartExamples.addTemplateField,
        summary: 'Place a field on a template',
        description: `${FIELD_RULES} A template has at most 500 fields (409 \`limit_reached\`). ${ANCHOR_RULES}`,
        params: IdParams,
        body: TemplateFieldCreateBody,
        response: {
          201: Type.Union(
            [
              Data(TemplateFieldSchema, 'The added field'),
              Data(Type.Array(FieldItem), 'The fields an anchored body placed, in page order'),
            ],
            { description: 'The added field; with `anchor`, the list of fields placed' },
          ),
        },
        errorCodes: [
          'not_found',
          'limit_reached',
          'invalid_state',
          'missing_file',
          'anchor_not_found',
        ],
      },
    },
    async (request, reply) => {
      const body = request.body;
      const orgId = orgOf(request);
      if (isAnchored(body))
        return reply.code(201).send({
          data: await service.addAnchoredFields(deps, orgId, request.params.id, body),
        });
      return reply.code(201).send({
        data: await service.addField(deps, orgId, request.params.id, body),
      });
    },
  );

  app.get(
    '/api/v1/templates/:id/fields',
    {
      config: { scope: 'templates.read' },
      schema: {
        tags,
        operationId: 'listTemplateFields',
        example: templatePartExamples.listTemplateFields,
        summary: "List a template's fields, oldest first",
        description: "The template's fields, in the order they were added.",
        params: IdParams,
        querystring: ListPartsQuery,
        response: { 200: Page(TemplateFieldSchema, 'The page of fields') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => service.listFields(deps, orgOf(request), request.params.id, request.query),
  );

  app.patch(
    '/api/v1/templates/:id/fields/:fieldId',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'updateTemplateField',
        example: templatePartExamples.updateTemplateField,
        summary: 'Edit a field of a template',
        description: `The rules apply to the field as it is after the change: ${FIELD_RULES}`,
        params: TemplateFieldParams,
        body: FieldPatch,
        response: { 200: Data(TemplateFieldSchema, 'The updated field') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.updateField(
        deps,
        orgOf(request),
        request.params.id,
        request.params.fieldId,
        request.body,
      ),
    }),
  );

  app.delete(
    '/api/v1/templates/:id/fields/:fieldId',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'removeTemplateField',
        example: templatePartExamples.removeTemplateField,
        summary: 'Remove a field from a template',
        description: 'Removes a field from the template.',
        params: TemplateFieldParams,
        response: { 204: NoContent },
        errorCodes: ['not_found'],
      },
    },
    async (request, reply) => {
      await service.removeField(deps, orgOf(request), request.params.id, request.params.fieldId);
      return reply.code(204).send(null);
    },
  );
}
