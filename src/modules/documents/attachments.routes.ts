import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from '../../deps.ts';
import { notFound } from '../../http/errors.ts';
import { writeAudit } from '../audit/audit.ts';
import { actorOf } from '../documents-core/document-access.ts';
import { requireDocument, type Actor } from '../documents-core/document-access.ts';
import { attachmentDisposition } from '../../http/content-disposition.ts';
import { fileExamples } from './files.examples.ts';

/** A document's attachment: its bytes as stored, under its own name and type; audited as a download. */
async function openAttachment(
  deps: AppDeps,
  actor: Actor,
  documentId: string,
  attachmentId: string,
) {
  await requireDocument(deps.db, actor.orgId, documentId);
  const row = await deps.db
    .selectFrom('attachments')
    .selectAll()
    .where('document_id', '=', documentId)
    .where('id', '=', attachmentId)
    .executeTakeFirst();
  if (!row) throw notFound('Attachment');
  const stream = await deps.storage.get(row.file_key);
  await writeAudit(deps.db, deps.clock, {
    orgId: actor.orgId,
    documentId,
    action: 'document.downloaded',
    details: `Attachment ${row.id} "${row.name}" downloaded`,
    meta: actor.meta,
  });
  return { row, stream };
}

export async function attachmentsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;
  app.get(
    '/api/v1/documents/:id/attachments/:attachmentId',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags: ['Documents'],
        operationId: 'downloadDocumentAttachment',
        example: fileExamples.downloadDocumentAttachment,
        summary:
          "Download one of the document's attachments (a signer's upload or identity evidence)",
        description:
          "The bytes exactly as the signer sent them (their SHA-256 is the attachment's `sha256`), with the attachment's `contentType` and " +
          '`Content-Disposition: attachment; filename="<name>"`. Writes the audit entry `document.downloaded`.',
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 64 }),
          attachmentId: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: {
          200: {
            description: 'The file bytes',
            content: Object.fromEntries(
              ['application/pdf', 'image/png', 'image/jpeg', 'image/webp'].map((t) => [
                t,
                { schema: { type: 'string', format: 'binary' } },
              ]),
            ),
          },
        },
        errorCodes: ['not_found', 'storage_unavailable'],
      },
    },
    async (request, reply) => {
      const { row, stream } = await openAttachment(
        deps,
        actorOf(request),
        request.params.id,
        request.params.attachmentId,
      );
      reply.headers({
        'content-type': row.content_type,
        'content-disposition': attachmentDisposition(row.name),
        'content-length': row.file_size,
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      });
      return reply.send(stream);
    },
  );
}
