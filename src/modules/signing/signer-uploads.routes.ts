import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requestMeta } from '../../http/request-meta.ts';
import { requireSigningSession } from './signer-access.ts';
import { Data, Id } from '../../http/schemas.ts';
import { UPLOAD_CONTENT_TYPES } from '../documents-core/documents.schemas.ts';
import { uploadFieldFile } from './signer-uploads.ts';
import { signingExamples } from './signing.examples.ts';

/**
 * `PUT /api/v1/signing/{token}/fields/{fieldId}/file`, in its own plugin: its content-type parser
 * hands the raw request stream to the handler, so the file is streamed to storage, never read
 * into memory, while every other route keeps its JSON parser and 1 MB limit.
 */
export async function signerUploadRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;
  // A signer with an access code: every call of its links needs the session of `POST …/access`.
  fastify.addHook('onRequest', requireSigningSession(deps));
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put(
    '/api/v1/signing/:token/fields/:fieldId/file',
    {
      schema: {
        tags: ['Signing'],
        security: [],
        operationId: 'uploadSigningFieldFile',
        example: signingExamples.uploadSigningFieldFile,
        summary: 'Attach a file to a `file` field while signing',
        description:
          'The body is the file itself with its `Content-Type` (`application/pdf`, `image/png`, `image/jpeg` or `image/webp`; at most 10 MB; ' +
          'the first bytes must match the type). Streamed to storage while its SHA-256 is computed. Answers the attachment id, which ' +
          "`complete` takes as the field's value (`values[fieldId] = attachmentId`). A second upload for the same field replaces the first. " +
          'The attachment appears in the document detail (`kind: "signer_upload"`) and on the signed PDF\'s certificate page with its SHA-256.',
        params: Type.Object({
          token: Type.String({ minLength: 1, maxLength: 200 }),
          fieldId: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        querystring: Type.Object(
          {
            filename: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description:
                  "The file's name as the signer chose it (shown in the detail and on the certificate page)",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        body: {
          content: Object.fromEntries(
            UPLOAD_CONTENT_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }]),
          ),
        },
        response: { 200: Data(Type.Object({ attachmentId: Id('att') }), 'The stored file') },
        errorCodes: [
          'forbidden',
          'link_locked',
          'access_code_required',
          'not_found',
          'invalid_state',
          'unsupported_media_type',
          'storage_unavailable',
        ],
      },
      // The body is a stream, not a value to validate.
      validatorCompiler: (ctx) =>
        ctx.httpPart === 'body'
          ? () => true
          : (fastify.validatorCompiler as FastifySchemaCompiler<unknown>)(ctx),
    },
    async (request) => {
      const length = request.headers['content-length'];
      const data = await uploadFieldFile(
        deps,
        request.params.token,
        request.params.fieldId,
        {
          contentType: request.headers['content-type'],
          contentLength: length === undefined ? undefined : Number(length),
          filename: request.query.filename,
          body: request.body as Readable | undefined,
        },
        requestMeta(request),
      );
      return { data };
    },
  );
}
