import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, IdParams, NoContent, Page } from '../../http/schemas.ts';
import { actorOf } from '../documents-core/document-access.ts';
import * as service from './signers.service.ts';
import {
  ListSignersQuery,
  SignerInput,
  SignerParams,
  SignerPatch,
  SignerSchema,
} from '../documents-core/signers.schemas.ts';
import { signerExamples } from './signers.examples.ts';

const tags = ['Signers'];

/** A document's recipients: `signer`, `approver` and `cc`, edited while the document is a draft. */
export async function signersRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.post(
    '/api/v1/documents/:id/signers',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'addSigner',
        example: signerExamples.addSigner,
        summary: 'Add a signer to a draft document',
        description:
          '`order` defaults to after the last signer and must not be taken (400). A document has at most 50 signers (409 `limit_reached`). Draft only (409 `invalid_state`). When the signer’s `otpMethod`, or else the document’s, is `sms`, `phone` must be a valid number in international form (400 `validation_error` on `body.phone`); a number in international form is kept in E.164.',
        params: IdParams,
        body: SignerInput,
        response: { 201: Data(SignerSchema, 'The added signer') },
        errorCodes: ['not_found', 'invalid_state', 'limit_reached'],
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await service.addSigner(deps, actorOf(request), request.params.id, request.body),
      }),
  );

  app.get(
    '/api/v1/documents/:id/signers',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'listSigners',
        example: signerExamples.listSigners,
        summary: "List a document's signers in signing order",
        description:
          'Paginated like every list (at most 50 signers exist, so `limit=100` always returns all of them in one page).',
        params: IdParams,
        querystring: ListSignersQuery,
        response: { 200: Page(SignerSchema, 'The page of signers') },
        errorCodes: ['not_found'],
      },
    },
    async (request) =>
      service.listDocumentSigners(deps, authOf(request).orgId, request.params.id, request.query),
  );

  app.patch(
    '/api/v1/documents/:id/signers/:signerId',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'updateSigner',
        example: signerExamples.updateSigner,
        summary: 'Edit a signer',
        description:
          'In `draft` any field may change; fields assigned to the signer follow a new `order`. In `pending` or `action_required` only `name`, `email`, `phone` and `accessCode` of a signer who has not acted may be corrected, and the signer is sent a fresh invitation; anything else is 409 `invalid_state`. A corrected `phone` clears an SMS delivery failure (`actionRequired.reason` `sms_undeliverable`) and the document resumes. A signer whose effective `otpMethod` is `sms` needs a valid E.164 `phone` (400 `validation_error`).',
        params: SignerParams,
        body: SignerPatch,
        response: { 200: Data(SignerSchema, 'The updated signer') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request) => ({
      data: await service.updateSigner(
        deps,
        actorOf(request),
        request.params.id,
        request.params.signerId,
        request.body,
      ),
    }),
  );

  app.delete(
    '/api/v1/documents/:id/signers/:signerId',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'removeSigner',
        example: signerExamples.removeSigner,
        summary: 'Remove a signer from a draft document',
        description:
          'Fields assigned to the removed order stay; sending refuses them until a signer takes that order. Draft only.',
        params: SignerParams,
        response: { 204: NoContent },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request, reply) => {
      await service.removeSigner(
        deps,
        actorOf(request),
        request.params.id,
        request.params.signerId,
      );
      return reply.code(204).send(null);
    },
  );
}
