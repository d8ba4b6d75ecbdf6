import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authOf } from '../../http/auth.ts';
import { Data } from '../../http/schemas.ts';
import { exportExamples } from './exports.examples.ts';
import { getExport, openExportDownload, startExport } from './exports.service.ts';
import {
  CreateExportBody,
  DownloadQuery,
  EXPORTS_PER_DAY,
  ExportIdParams,
  OrganizationExport,
} from './exports.schemas.ts';

const tags = ['Organization'];

/** Exports of every document of the organization (a ZIP made by a job, downloadable for 24 hours). */
export async function exportsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.post(
    '/api/v1/organization/exports',
    {
      config: { scope: 'organization.export' },
      // The body is optional: no body is `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        operationId: 'createOrganizationExport',
        example: exportExamples.createOrganizationExport,
        summary: 'Export every document of your organization as a ZIP',
        description:
          "Starts an export (202): a background job writes a ZIP with, for each document not deleted, a folder named after it holding its original, its signed PDF, its signers' attachments, its audit log (`audit-log.json`) and a summary (`document.json`), plus the certificate the signed PDFs are sealed with. " +
          'Follow it with `GET /api/v1/organization/exports/{id}`, or wait for `organization.export.completed`; the ZIP can be downloaded for 24 hours. ' +
          `One export runs at a time per organization, and at most ${EXPORTS_PER_DAY} start in 24 hours (409 \`limit_reached\`).`,
        body: CreateExportBody,
        response: { 202: Data(OrganizationExport, 'The export, queued') },
        errorCodes: ['limit_reached'],
      },
    },
    async (request, reply) =>
      reply.code(202).send({ data: await startExport(deps, authOf(request).orgId) }),
  );

  app.get(
    '/api/v1/organization/exports/:id',
    {
      config: { scope: 'organization.export' },
      schema: {
        tags,
        operationId: 'getOrganizationExport',
        example: exportExamples.getOrganizationExport,
        summary: 'Get an export, its progress and, once completed, its download link',
        description:
          '`processedDocuments` of `totalDocuments` are written so far. Once `completed`, `downloadUrl` is a link to the ZIP that needs no API key and works until `expiresAt` (24 hours); after that the ZIP is deleted and the export is `expired`.',
        params: ExportIdParams,
        response: { 200: Data(OrganizationExport, 'The export') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await getExport(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.get(
    '/api/v1/organization/exports/:id/download',
    {
      schema: {
        tags,
        operationId: 'downloadOrganizationExport',
        security: [],
        example: exportExamples.downloadOrganizationExport,
        summary: "Download an export's ZIP (its downloadUrl)",
        description:
          'The ZIP, streamed from storage. Names inside are UTF-8; archives past 4 GB use ZIP64. 403 `forbidden` once the link expired (start a new export) or when the token is not genuine.',
        params: ExportIdParams,
        querystring: DownloadQuery,
        response: {
          200: Type.Unsafe<unknown>({
            description: 'The ZIP',
            content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
          }),
        },
        errorCodes: ['forbidden', 'not_found'],
      },
    },
    async (request, reply) => {
      const file = await openExportDownload(deps, request.params.id, request.query.token);
      reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('cache-control', 'private, no-store');
      if (file.size !== null) reply.header('content-length', String(file.size));
      return reply.send(file.body);
    },
  );
}
