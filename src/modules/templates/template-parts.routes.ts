import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, errors, IdParams, NoContent, Page } from '../../http/schemas.ts';
import { FieldInput, FieldPatch } from '../fields/fields.schemas.ts';
import * as service from './template-parts.service.ts';
import { ListPartsQuery, RoleInput, RoleParams, RolePatch, RoleSchema, TemplateFieldParams, TemplateFieldSchema } from './templates.schemas.ts';

const tags = ['Templates'];

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
        summary: 'Add a signing role to a template',
        description:
          'A role with `signerEmail` has a fixed signer, added to every document made from the template (`signerName` defaults to the role name). ' +
          'A template has at most 50 roles (409 `limit_reached`).',
        params: IdParams,
        body: RoleInput,
        response: { 201: Data(RoleSchema), ...errors(400, 404, 409, 413) },
      },
    },
    async (request, reply) => reply.code(201).send({ data: await service.addRole(deps, orgOf(request), request.params.id, request.body) }),
  );

  app.get(
    '/api/v1/templates/:id/roles',
    {
      config: { scope: 'templates.read' },
      schema: {
        tags,
        operationId: 'listTemplateRoles',
        summary: "List a template's roles in signing order",
        params: IdParams,
        querystring: ListPartsQuery,
        response: { 200: Page(RoleSchema), ...errors(400, 404) },
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
        summary: 'Edit a role; its fields follow a new order',
        params: RoleParams,
        body: RolePatch,
        response: { 200: Data(RoleSchema), ...errors(400, 404, 413) },
      },
    },
    async (request) => ({ data: await service.updateRole(deps, orgOf(request), request.params.id, request.params.roleId, request.body) }),
  );

  app.delete(
    '/api/v1/templates/:id/roles/:roleId',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'removeTemplateRole',
        summary: 'Remove a role (its fields stay, assigned to its order)',
        params: RoleParams,
        response: { 204: NoContent, ...errors(400, 404) },
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
        summary: 'Place a field on a template',
        description: `${FIELD_RULES} A template has at most 500 fields (409 \`limit_reached\`).`,
        params: IdParams,
        body: FieldInput,
        response: { 201: Data(TemplateFieldSchema), ...errors(400, 404, 409, 413) },
      },
    },
    async (request, reply) => reply.code(201).send({ data: await service.addField(deps, orgOf(request), request.params.id, request.body) }),
  );

  app.get(
    '/api/v1/templates/:id/fields',
    {
      config: { scope: 'templates.read' },
      schema: {
        tags,
        operationId: 'listTemplateFields',
        summary: "List a template's fields, oldest first",
        params: IdParams,
        querystring: ListPartsQuery,
        response: { 200: Page(TemplateFieldSchema), ...errors(400, 404) },
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
        summary: 'Edit a field of a template',
        description: `The rules apply to the field as it is after the change: ${FIELD_RULES}`,
        params: TemplateFieldParams,
        body: FieldPatch,
        response: { 200: Data(TemplateFieldSchema), ...errors(400, 404, 413) },
      },
    },
    async (request) => ({ data: await service.updateField(deps, orgOf(request), request.params.id, request.params.fieldId, request.body) }),
  );

  app.delete(
    '/api/v1/templates/:id/fields/:fieldId',
    {
      config: { scope: 'templates.write' },
      schema: {
        tags,
        operationId: 'removeTemplateField',
        summary: 'Remove a field from a template',
        params: TemplateFieldParams,
        response: { 204: NoContent, ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      await service.removeField(deps, orgOf(request), request.params.id, request.params.fieldId);
      return reply.code(204).send(null);
    },
  );
}
