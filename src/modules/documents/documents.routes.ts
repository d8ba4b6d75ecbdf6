import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authOf } from '../../http/auth.ts';
import { Data, IdParams, NoContent, Page, PageQuery } from '../../http/schemas.ts';
import { actorOf, getDocument } from '../documents-core/document-access.ts';
import * as service from './documents.service.ts';
import { createDocument } from './create-document.service.ts';
import { cancelDocument } from './cancel-document.service.ts';
import { sendDocument } from './send-document.service.ts';
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
} from '../documents-core/documents.schemas.ts';
import { documentExamples } from './documents.examples.ts';
import { documentDetailExamples } from './document-detail.examples.ts';

const tags = ['Documents'];

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
        example: documentExamples.listDocuments,
        summary: 'List documents, newest first',
        description:
          'Items show the file as last verified: with `STORAGE=s3`, a file sent straight to the bucket is verified when the document ' +
          'is next read on its own (`GET /api/v1/documents/{id}`), sent or downloaded, and shows `fileSize` 0 here until then.',
        querystring: ListDocumentsQuery,
        response: { 200: Page(DocumentListItem, 'The page of documents') },
        errorCodes: [],
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
        example: documentExamples.createDocument,
        summary: 'Create a draft document (optionally with signers and fields)',
        description:
          "Creates a document in `draft`. `signers` and `fields` may come inline (the bodies of `addSigner` and `addField`), or from a template with `templateId` (the template's file and fields are copied; `signers` fill its roles without fixed signers, lowest order first). `expiresAt` must be in the future; `folderId` must be a folder of your organization (404 otherwise). At most 500 fields in all (409 `limit_reached`). An inline field may give `anchor` instead of `page`/`x`/`y`/`width`/`height`: it is placed at every occurrence of its text (or the 1-based `occurrence`) in the file copied from `templateId`, as `addField` places it (400 `anchor_not_found` unless `ignoreIfMissing`; 409 `missing_file` without a file). Next: upload the PDF (`requestDocumentUpload`), then `sendDocument`.",
        body: CreateDocumentBody,
        response: { 201: Data(CreatedDocument, 'The created draft') },
        errorCodes: [
          'not_found',
          'limit_reached',
          'invalid_state',
          'storage_unavailable',
          'missing_file',
          'anchor_not_found',
        ],
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await createDocument(deps, actorOf(request), request.body) }),
  );

  app.get(
    '/api/v1/documents/:id',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'getDocument',
        example: documentDetailExamples.getDocument,
        summary: 'Get a document with its signers, fields and attachments',
        description: DIRECT_UPLOAD_VERIFICATION,
        params: IdParams,
        response: { 200: Data(DocumentDetail, 'The document') },
        errorCodes: [
          'not_found',
          'payload_too_large',
          'unsupported_media_type',
          'storage_unavailable',
        ],
      },
    },
    async (request) => ({
      data: await getDocument(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.patch(
    '/api/v1/documents/:id',
    {
      config: { scope: 'documents.write' },
      schema: {
        tags,
        operationId: 'updateDocument',
        example: documentDetailExamples.updateDocument,
        summary: 'Edit a draft document',
        description:
          'Answers the detail, which verifies a file sent straight to the S3 bucket first (see `getDocument`; 413/415 when it is refused).',
        params: IdParams,
        body: UpdateDocumentBody,
        response: { 200: Data(DocumentDetail, 'The updated document') },
        errorCodes: ['not_found', 'invalid_state', 'storage_unavailable'],
      },
    },
    async (request) => ({
      data: await service.updateDocument(deps, actorOf(request), request.params.id, request.body),
    }),
  );

  app.delete(
    '/api/v1/documents/:id',
    {
      config: { scope: 'documents.delete' },
      schema: {
        tags,
        operationId: 'deleteDocument',
        example: documentExamples.deleteDocument,
        summary: 'Delete a document (soft); refused while pending or action_required',
        description:
          'Soft-deletes the document: it disappears from lists and reads (404 afterwards) and `document.deleted` is delivered. Refused while the document is `pending` or `action_required` (409 `invalid_state`): cancel it first.',
        params: IdParams,
        response: { 204: NoContent },
        errorCodes: ['not_found', 'invalid_state'],
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
        example: documentExamples.sendDocument,
        summary: 'Send a draft for signature',
        description:
          'With `STORAGE=s3`, a file sent straight to the bucket is verified first (see `getDocument`: 413/415 when it is refused, ' +
          '409 `missing_file` while its object has not arrived and the document has no earlier file). Sending ends the pending upload: ' +
          'bytes PUT to its URL afterwards are never used. 409 `invalid_state` also when a field is assigned to an order no signer or ' +
          'approver has, or is on a page the file does not have (fields placed before the file arrived, or kept when it was replaced by a shorter one).',
        params: IdParams,
        response: { 200: Data(SendResult, 'The document is out for signature') },
        errorCodes: [
          'not_found',
          'invalid_state',
          'missing_signers',
          'missing_fields',
          'missing_file',
          'storage_unavailable',
        ],
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
        example: documentExamples.cancelDocument,
        summary: 'Cancel a document out for signature',
        description:
          'Cancels a document that is `pending` or `action_required` (409 `invalid_state` otherwise). Signers who had not finished are told by email and their links stop working; `cancelledSigners` counts them. Delivers `document.cancelled`.',
        params: IdParams,
        response: { 200: Data(CancelResult, 'The cancelled document') },
        errorCodes: ['not_found', 'invalid_state'],
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
        example: documentDetailExamples.resealDocument,
        summary: 'Try sealing again after it failed',
        description:
          'For a document that is `action_required` with `actionRequired.reason` `sealing_failed` (every signer signed, but the signed PDF ' +
          'could not be produced: an unreadable certificate, a PDF the sealer cannot read, attempts exhausted). The document returns to ' +
          '`pending` and sealing is queued again; the answer is the detail. Any other document: 409 `invalid_state`. When sealing fails ' +
          'again for good, the document is `action_required` again and `document.action_required` is delivered again.',
        params: IdParams,
        response: { 200: Data(DocumentDetail, 'The document, sealing again') },
        errorCodes: ['not_found', 'invalid_state'],
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
        example: documentExamples.listDocumentAudit,
        summary: 'The audit log of a document, oldest first',
        description:
          'Every action on the document, oldest first: created, uploaded, sent, viewed, signed, completed, downloaded and so on, with the IP address, user agent and, where known, city and country. These are not webhook events (see `listEvents`).',
        params: IdParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Page(AuditEntry, 'The page of audit entries') },
        errorCodes: ['not_found'],
      },
    },
    async (request) =>
      service.listAuditLog(deps, authOf(request).orgId, request.params.id, request.query),
  );
}
