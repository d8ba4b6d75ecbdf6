import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requestMeta } from '../../http/request-meta.ts';
import { EX } from '../../http/examples.ts';
import { Data, IdParams } from '../../http/schemas.ts';
import { actorOf } from '../documents-core/document-access.ts';
import {
  DocumentDetail,
  MAX_UPLOAD_BYTES,
  UPLOAD_CONTENT_TYPES,
  UploadBody,
  UploadTicket,
} from '../documents-core/documents.schemas.ts';
import { findDownload, openDownload } from './download.service.ts';
import { TemplateDetail } from '../templates/templates.schemas.ts';
import { receiveTemplateUpload } from '../templates/template-upload.ts';
import {
  createUploadTicket,
  receiveDocumentUpload,
  receiveUpload,
  UPLOAD_URL_TTL_SECONDS,
  type GrantedUpload,
} from '../documents-core/upload.service.ts';
import type { UploadGrant } from '../documents-core/upload-token.ts';
import { fileExamples } from './files.examples.ts';

const tags = ['Documents'];

const Binary = { type: 'string', format: 'binary' } as const;

/** Routes for the two-step upload of a document's file and its download. */
export async function filesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.post(
    '/api/v1/documents/:id/upload',
    {
      config: { scope: 'documents.write' },
      // Every field is optional, so a request with no body at all (Fastify then leaves `body`
      // undefined) means "all defaults".
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        operationId: 'requestDocumentUpload',
        example: fileExamples.requestDocumentUpload,
        summary: 'Step 1 of the upload: get a signed URL to PUT the file to',
        description:
          `Draft documents only (409 \`invalid_state\`). The body may be omitted. \`uploadUrl\` is valid ${UPLOAD_URL_TTL_SECONDS} seconds ` +
          '(`expiresIn`) and is bound to this document, `fileKey` (the storage key the bytes will be written to), `contentType` and the size limit ' +
          `(the declared \`fileSize\`, else ${MAX_UPLOAD_BYTES} bytes). A declared \`fileSize\` over ${MAX_UPLOAD_BYTES} bytes is 413 \`payload_too_large\`. ` +
          'Step 2: send the bytes with `method` (PUT) to `uploadUrl` with the returned `headers`. ' +
          'With the local driver `uploadUrl` is `PUBLIC_URL/uploads/{token}` (see `uploadDocumentFile`). With `STORAGE=s3` it is a presigned PUT ' +
          'straight to the bucket (AWS S3, MinIO, Cloudflare R2 …) for a fresh `fileKey` under `incoming/`; `Content-Type` is signed into it, ' +
          'so the bucket refuses (403) a PUT without exactly the returned `headers`. The bucket cannot check the bytes, so the document records ' +
          'the upload as pending and verifies it on its next detail read, send or download (see `getDocument`). One pending upload per ' +
          'document: requesting a URL first settles bytes already sent to the previous one (a refusal of those is only written to the audit ' +
          'log, as `document.upload_refused`), then voids that URL and deletes what was sent to it.',
        params: IdParams,
        body: UploadBody,
        response: {
          200: { ...Data(UploadTicket), description: 'Where and how to send the bytes' },
        },
        errorCodes: ['not_found', 'invalid_state', 'storage_unavailable'],
      },
    },
    async (request) => ({
      data: await createUploadTicket(deps, actorOf(request), request.params.id, request.body),
    }),
  );

  app.get(
    '/api/v1/documents/:id/download',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'downloadDocument',
        example: fileExamples.downloadDocument,
        summary: 'Download the PDF: the signed PDF once completed, otherwise the uploaded one',
        description:
          'Always `Content-Type: application/pdf` and `Content-Disposition: attachment; filename="<document name> - Signed.pdf"` ' +
          "(plus `filename*=UTF-8''…` when the name is not plain ASCII or holds `\"` or `\\`). An uploaded image is returned as the one-page PDF made from it. " +
          '404 `not_found` while no file was uploaded. Writes the audit entry `document.downloaded`. With `STORAGE=s3`, a file sent straight ' +
          'to the bucket is verified first (see `getDocument`): 404 while its object has not arrived, 413/415 when it is refused.',
        params: IdParams,
        response: {
          200: Type.Unsafe<unknown>({
            description: 'The PDF bytes',
            content: { 'application/pdf': { schema: Binary } },
          }),
        },
        errorCodes: [
          'not_found',
          'payload_too_large',
          'unsupported_media_type',
          'storage_unavailable',
        ],
      },
    },
    async (request, reply) => {
      // HEAD (Fastify answers it with this handler) tells the size without reading or auditing a download.
      const head = request.method === 'HEAD';
      const file = head
        ? await findDownload(deps, actorOf(request).orgId, request.params.id)
        : await openDownload(deps, actorOf(request), request.params.id);
      reply.headers({
        'content-type': 'application/pdf',
        'content-disposition': file.disposition,
        'content-length': file.size,
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      });
      // Fastify's HEAD handling sets `content-length: 0` for an empty payload but keeps it for a
      // stream, which it drains without sending: an empty stream keeps the real size.
      return reply.send('stream' in file ? file.stream : Readable.from([]));
    },
  );

  await fastify.register(uploadReceiverRoutes);
}

/** The token is a credential for an hour: request logs show the route, never the token. */
function redactedRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: '/uploads/[redacted]',
    host: request.host,
    remoteAddress: request.ip,
  };
}

/**
 * Step 2 of the upload, in its own plugin: its content-type parser hands the raw request stream to
 * the handler, so a 50 MB file is streamed to storage instead of being read into memory, while every
 * other route keeps the 1 MB JSON limit.
 */
async function uploadReceiverRoutes(fastify: FastifyInstance): Promise<void> {
  const deps = fastify.deps;
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  // Who takes the bytes of a checked upload, by the token's target.
  const receivers: Record<UploadGrant['target'], GrantedUpload> = {
    document: (grant, body, meta) => receiveDocumentUpload(deps, grant, body, meta),
    template: (grant, body) => receiveTemplateUpload(deps, grant, body),
  };

  fastify.put<{ Params: { '*': string } }>(
    // A wildcard, not `:token`: the router caps named parameters at 100 characters.
    '/uploads/*',
    {
      logSerializers: { req: redactedRequest },
      config: {
        // Documented as `/uploads/{token}` with its binary body; the runtime route takes no body schema,
        // since the body is a stream, not a value to validate.
        swaggerTransform: ({ schema }) => ({
          url: '/uploads/{token}',
          schema: {
            ...schema,
            params: Type.Object({
              token: Type.String({
                description: 'The token part of `uploadUrl`',
                examples: [EX.uploadToken],
              }),
            }),
            body: {
              description:
                'The file bytes, at most the size limit bound to the URL (50 MB by default)',
              content: Object.fromEntries(UPLOAD_CONTENT_TYPES.map((t) => [t, { schema: Binary }])),
            },
          },
        }),
      },
      schema: {
        tags,
        security: [],
        operationId: 'uploadDocumentFile',
        example: fileExamples.uploadDocumentFile,
        summary: 'Step 2 of the upload: PUT the file bytes to the signed uploadUrl (no API key)',
        description:
          'The upload URL of the local driver (with `STORAGE=s3` clients PUT to the bucket instead). Authenticated by the signed token in the URL. `Content-Type` must be the `contentType` bound to the URL (415). The body is streamed to ' +
          'storage while its SHA-256 is computed; a `Content-Length` over the limit is refused at once, and a body that grows past it is cut off, ' +
          'both with 413 and the connection closed. The first bytes must match the type (`%PDF-`, PNG, JPEG or WEBP signature; 415). PDFs up to ' +
          '10 MB are parsed for their page count (unreadable or encrypted: 415; too many files being read at once: 503 `busy` with `Retry-After`, nothing kept); images become a one-page PDF (at most 50 megapixels). ' +
          'Sets `fileSize`, `documentHash` (SHA-256 hex of the bytes as uploaded) and the page count, writes the audit entry ' +
          '`document.uploaded`, and answers with the document. The URL may be used again until it expires; each upload replaces the previous file. ' +
          "A template's upload URL (`requestTemplateUpload`, with either driver) is received here the same way and answers with the template.",
        response: {
          200: {
            ...Data(Type.Union([DocumentDetail, TemplateDetail])),
            description:
              "The document (or, for a template's upload URL, the template), with its new `fileSize` and `documentHash`",
          },
        },
        // 400 an upload cut short; 401 an expired URL; 403 a forged one; 409 a document no longer a draft or deleted.
        errorCodes: [
          'unauthorized',
          'forbidden',
          'invalid_state',
          'unsupported_media_type',
          'storage_unavailable',
          'busy',
        ],
      },
    },
    async (request) => {
      const length = request.headers['content-length'];
      const data = await receiveUpload(
        deps,
        {
          token: request.params['*'],
          contentType: request.headers['content-type'],
          contentLength: length === undefined ? undefined : Number(length),
          body: request.body as Readable | undefined,
          meta: requestMeta(request),
        },
        receivers,
      );
      return { data };
    },
  );
}
