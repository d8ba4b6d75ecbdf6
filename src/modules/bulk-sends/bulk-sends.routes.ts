import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { validationDetails, type AjvLikeError } from '../../http/error-handler.ts';
import { AppError } from '../../http/errors.ts';
import { Data, IdParams, Page } from '../../http/schemas.ts';
import { actorOf } from '../documents-core/document-access.ts';
import { CsvTable, readCsv } from './bulk-csv.ts';
import * as service from './bulk-sends.service.ts';
import {
  BULK_BODY_LIMIT,
  BulkSend,
  CancelBulkSendBody,
  CreateBulkSendBody,
  CreateBulkSendQuery,
  CsvBody,
  ListBulkSendsQuery,
  type CreateBulkSendInput,
} from './bulk-sends.schemas.ts';
import { bulkSendExamples } from './bulk-sends.examples.ts';

const tags = ['Bulk sends'];

/** `body.rows.17.signers.0.email` → `rows[17].signers[0].email`, as the README's "Bulk send" names a bad row. */
const rowPath = (path: string) =>
  path.replace(/^body\.rows\./, 'rows.').replace(/\.(\d+)(?=\.|$)/g, '[$1]');

export async function bulkSendsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  // A CSV body is parsed while it streams in (bulk-csv.ts); only this plugin's routes take text/csv.
  app.addContentTypeParser('text/csv', (_request, payload, done) => {
    readCsv(payload).then(
      (table) => done(null, table),
      (err: Error) => done(err, undefined),
    );
  });
  // The CSV is checked row by row by the service (errors name `row N`); JSON by the usual validator.
  const defaultCompiler = fastify.validatorCompiler as FastifySchemaCompiler<unknown>;
  const validatorCompiler: FastifySchemaCompiler<unknown> = (ctx) =>
    (ctx as { contentType?: string }).contentType === 'text/csv'
      ? (data: unknown) => data instanceof CsvTable
      : defaultCompiler(ctx);

  app.post(
    '/api/v1/bulk-sends',
    {
      config: { scope: 'documents.send' },
      bodyLimit: BULK_BODY_LIMIT,
      attachValidation: true,
      validatorCompiler,
      schema: {
        tags,
        operationId: 'createBulkSend',
        example: bulkSendExamples.createBulkSend,
        summary: 'Send a template to many recipients: one document per row',
        description:
          'JSON (`rows`) or `text/csv` (with `?templateId=…&name=…`), 1-10,000 rows, at most 16 MB. Every row is validated first: one bad row ' +
          'answers 400 with `details` naming each bad row (`rows[17].signers[0].email`, or `row 18` for CSV) and creates nothing. Otherwise ' +
          "202 with the bulk send; a background job creates and sends each row's document exactly once (also across restarts), and " +
          '`bulk_send.completed` is delivered when every row is done. Invitations go out at `MAIL_RATE_PER_SECOND`.',
        querystring: CreateBulkSendQuery,
        body: {
          content: {
            'application/json': { schema: CreateBulkSendBody },
            'text/csv': { schema: CsvBody },
          },
        },
        response: { 202: Data(BulkSend, 'The bulk send, accepted') },
        errorCodes: [
          'not_found',
          'invalid_state',
          'missing_file',
          'missing_fields',
          'unsupported_media_type',
        ],
      },
    },
    async (request, reply) => {
      if (request.validationError) {
        const v = request.validationError as Error & {
          validation?: AjvLikeError[];
          validationContext?: string;
        };
        const details = validationDetails(v.validationContext, v.validation ?? []).map((d) => ({
          ...d,
          path: rowPath(d.path),
        }));
        const first = details[0];
        throw new AppError(
          'validation_error',
          first ? `${first.path} ${first.message}` : 'Request is invalid',
          details,
        );
      }
      const body = request.body as unknown;
      // No body at all: nothing for the validator to see (it checks a body by its content type).
      if (body === undefined || body === null) {
        throw new AppError(
          'validation_error',
          'Send the rows as a JSON body, or a CSV file as text/csv',
          [{ path: 'body', message: 'is required' }],
        );
      }
      const query = request.query;
      let created: Awaited<ReturnType<typeof service.createBulkSendFromJson>>;
      if (body instanceof CsvTable)
        created = await service.createBulkSendFromCsv(deps, actorOf(request), query, body);
      else {
        const given = Object.keys(query).find((k) => query[k as keyof typeof query] !== undefined);
        if (given)
          throw new AppError(
            'validation_error',
            `query.${given} is for text/csv bodies; put it in the JSON body`,
            [{ path: `query.${given}`, message: 'is only for text/csv bodies' }],
          );
        created = await service.createBulkSendFromJson(
          deps,
          actorOf(request),
          body as CreateBulkSendInput,
        );
      }
      return reply.code(202).send({ data: created });
    },
  );

  app.get(
    '/api/v1/bulk-sends',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'listBulkSends',
        example: bulkSendExamples.listBulkSends,
        summary: 'List bulk sends, newest first',
        description:
          "Your organization's bulk sends, newest first, each with its progress (`total`, `sent`, `failed`).",
        querystring: ListBulkSendsQuery,
        response: { 200: Page(BulkSend, 'The page of bulk sends') },
        errorCodes: [],
      },
    },
    async (request) => service.listBulkSends(deps, authOf(request).orgId, request.query),
  );

  app.get(
    '/api/v1/bulk-sends/:id',
    {
      config: { scope: 'documents.read' },
      schema: {
        tags,
        operationId: 'getBulkSend',
        example: bulkSendExamples.getBulkSend,
        summary: 'Get a bulk send and its progress',
        description:
          'One bulk send and its progress. Its documents: `GET /api/v1/documents?bulkSendId=`.',
        params: IdParams,
        response: { 200: Data(BulkSend, 'The bulk send') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.getBulkSend(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.post(
    '/api/v1/bulk-sends/:id/cancel',
    {
      config: { scope: 'documents.send' },
      // The body is optional: no body is `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        operationId: 'cancelBulkSend',
        example: bulkSendExamples.cancelBulkSend,
        summary:
          'Stop the rows not sent yet (and, with cancelDocuments, cancel the documents already sent)',
        description:
          'Rows not sent yet are never sent. Documents already sent stay out for signature unless `cancelDocuments` is true: they are then ' +
          'cancelled in the background, each as `POST /api/v1/documents/{id}/cancel` does. 409 `invalid_state` once completed or cancelled.',
        params: IdParams,
        body: CancelBulkSendBody,
        response: { 200: Data(BulkSend, 'The cancelled bulk send') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request) => ({
      data: await service.cancelBulkSend(
        deps,
        actorOf(request),
        request.params.id,
        request.body?.cancelDocuments ?? false,
      ),
    }),
  );
}
