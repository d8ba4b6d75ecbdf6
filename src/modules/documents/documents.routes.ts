import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authOf } from '../../http/auth.ts';
import { requestMeta } from '../../http/request-meta.ts';
import { Data, errors, IdParams, NoContent, Page, PageQuery } from '../../http/schemas.ts';
import type { Actor } from './documents.service.ts';
import * as service from './documents.service.ts';
import { createDocument } from './create-document.service.ts';
import { cancelDocument, sendDocument } from './send-document.service.ts';
import { resealDocument } from './sealing.service.ts';
import {
  AuditEntry,
  CancelResult,
  CreateDocumentBody,
  CreatedDocument,
  DocumentDetail,
  DIRECT_UPLOAD_VERIFICATION,
  DocumentListItem,
  ListDocumentsQuery,
  SendResult,
  UpdateDocumentBody,
} from './documents.schemas.ts';

const tags = ['Documents'];

/** The organization of the API key and the request's origin. */
export function actorOf(request: FastifyRequest): Actor {
  return { orgId: authOf(request).orgId, meta: requestMeta(request) };
}

export async function documentsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.get(
    '/api/v1/documents',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'listDocuments',
        summary: 'List documents, newest first',
        description:
          'Items show the file as last verified: with `STORAGE=s3`, a file sent straight to the bucket is verified when the document ' +
          'is next read on its own (`GET /api/v1/documents/{id}`), sent or downloaded, and shows `fileSize` 0 here until then.',
        querystring: ListDocumentsQuery,
        response: { 200: Page(DocumentListItem), ...errors(400) },
      },
    },
    async (request) => service.listDocuments(deps, authOf(request).orgId, request.query),
  );

  app.post(
    '/api/v1/documents',
    {
      config: { scope: 'documents.create' },
      schema: {
        tags,
        operationId: 'createDocument',
        summary: 'Create a draft document (optionally with signers and fields)',
        body: CreateDocumentBody,
        response: { 201: Data(CreatedDocument), ...errors(400, 409, 413) },
      },
    },
    async (request, reply) => reply.code(201).send({ data: await createDocument(deps, actorOf(request), request.body) }),
  );

  app.get(
    '/api/v1/documents/:id',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'getDocument',
        summary: 'Get a document with its signers, fields and attachments',
        description: DIRECT_UPLOAD_VERIFICATION,
        params: IdParams,
        response: { 200: Data(DocumentDetail), ...errors(400, 404, 413, 415) },
      },
    },
    async (request) => ({ data: await service.getDocument(deps, authOf(request).orgId, request.params.id) }),
  );

  app.patch(
    '/api/v1/documents/:id',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'updateDocument',
        summary: 'Edit a draft document',
        description: 'Answers the detail, which verifies a file sent straight to the S3 bucket first (see `getDocument`; 413/415 when it is refused).',
        params: IdParams,
        body: UpdateDocumentBody,
        response: { 200: Data(DocumentDetail), ...errors(400, 404, 409, 413, 415) },
      },
    },
    async (request) => ({ data: await service.updateDocument(deps, actorOf(request), request.params.id, request.body) }),
  );

  app.delete(
    '/api/v1/documents/:id',
    {
      config: { scope: 'documents.delete' },
      schema: {
        tags,
        operationId: 'deleteDocument',
        summary: 'Delete a document (soft); refused while pending or action_required',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 404, 409) },
      },
    },
    async (request, reply) => {
      await service.deleteDocument(deps, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/documents/:id/send',
    {
      config: { scope: 'documents.send' },
      schema: {
        tags,
        operationId: 'sendDocument',
        summary: 'Send a draft for signature',
        description:
          'With `STORAGE=s3`, a file sent straight to the bucket is verified first (see `getDocument`: 413/415 when it is refused, ' +
          '409 `missing_file` while its object has not arrived and the document has no earlier file). Sending ends the pending upload: ' +
          'bytes PUT to its URL afterwards are never used. 409 `invalid_state` also when a field is assigned to an order no signer or ' +
          'approver has, or is on a page the file does not have (fields placed before the file arrived, or kept when it was replaced by a shorter one).',
        params: IdParams,
        response: { 200: Data(SendResult), ...errors(400, 404, 409, 413, 415) },
      },
    },
    async (request) => ({ data: await sendDocument(deps, actorOf(request), request.params.id) }),
  );

  app.post(
    '/api/v1/documents/:id/cancel',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'cancelDocument',
        summary: 'Cancel a document out for signature',
        params: IdParams,
        response: { 200: Data(CancelResult), ...errors(400, 404, 409) },
      },
    },
    async (request) => ({ data: await cancelDocument(deps, actorOf(request), request.params.id) }),
  );

  app.post(
    '/api/v1/documents/:id/reseal',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'resealDocument',
        summary: 'Try sealing again after it failed',
        description:
          'For a document that is `action_required` with `actionRequired.reason` `sealing_failed` (every signer signed, but the signed PDF ' +
          'could not be produced: an unreadable certificate, a PDF the sealer cannot read, attempts exhausted). The document returns to ' +
          '`pending` and sealing is queued again; the answer is the detail. Any other document: 409 `invalid_state`. When sealing fails ' +
          'again for good, the document is `action_required` again and `document.action_required` is delivered again.',
        params: IdParams,
        response: { 200: Data(DocumentDetail), ...errors(400, 404, 409) },
      },
    },
    async (request) => ({ data: await resealDocument(deps, actorOf(request), request.params.id) }),
  );

  app.get(
    '/api/v1/documents/:id/audit',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'listDocumentAudit',
        summary: 'The audit log of a document, oldest first',
        params: IdParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Page(AuditEntry), ...errors(400, 404) },
      },
    },
    async (request) => service.listAuditLog(deps, authOf(request).orgId, request.params.id, request.query),
  );
}
