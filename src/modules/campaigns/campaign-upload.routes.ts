import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requestMeta } from '../../http/request-meta.ts';
import { Data, Id } from '../../http/schemas.ts';
import { UPLOAD_CONTENT_TYPES } from '../documents-core/documents.schemas.ts';
import { uploadCampaignFile } from './campaign-uploads.ts';
import { SlugParams } from './public.schemas.ts';
import { campaignExamples } from './campaigns.examples.ts';

/**
 * `PUT /api/v1/public/campaigns/{slug}/fields/{fieldId}/file`, in its own plugin for the same
 * reason as the signing page's upload (signer-uploads.routes.ts): the raw request stream goes to
 * storage, never into memory, while every other route keeps its JSON parser and 1 MB limit.
 */
export async function campaignUploadRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put(
    '/api/v1/public/campaigns/:slug/fields/:fieldId/file',
    {
      schema: {
        tags: ['Public campaigns'],
        security: [],
        operationId: 'uploadPublicCampaignFieldFile',
        example: campaignExamples.uploadPublicCampaignFieldFile,
        summary:
          "Attach a file to one of a campaign form's `file` fields before submitting (no API key)",
        description:
          'The body is the file itself with its `Content-Type` (`application/pdf`, `image/png`, `image/jpeg` or `image/webp`; at most 10 MB; ' +
          'the first bytes must match the type), streamed to storage while its SHA-256 is computed, as on the signing page. Answers the ' +
          "attachment id, which the submission takes as the field's value (`values[fieldId] = attachmentId`); uploading again gives a new id " +
          'to submit instead. The submitted file becomes the document\'s attachment (`kind: "signer_upload"`), listed with its SHA-256 on the ' +
          "signed PDF's certificate page; a file no submission names is deleted after 24 hours. At most twice `CAMPAIGN_SUBMISSIONS_PER_HOUR` " +
          'uploads per form and 30 per address per hour (429). 409 for a `requireKyc` form: its visitor attaches files on their signing page.',
        params: Type.Object({
          slug: SlugParams.properties.slug,
          fieldId: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        querystring: Type.Object(
          {
            filename: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 200,
                description:
                  "The file's name as the visitor chose it (shown in the detail and on the certificate page)",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        // The raw bytes, described per type for OpenAPI; the handler gets the request stream.
        body: Type.Unsafe<Readable | undefined>({
          content: Object.fromEntries(
            UPLOAD_CONTENT_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }]),
          ),
        }),
        response: { 200: Data(Type.Object({ attachmentId: Id('att') }), 'The stored file') },
        errorCodes: [
          'not_found',
          'invalid_state',
          'limit_reached',
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
      const data = await uploadCampaignFile(
        deps,
        request.params.slug,
        request.params.fieldId,
        {
          contentType: request.headers['content-type'],
          contentLength: length === undefined ? undefined : Number(length),
          filename: request.query.filename,
          body: request.body,
        },
        requestMeta(request),
      );
      return { data };
    },
  );
}
