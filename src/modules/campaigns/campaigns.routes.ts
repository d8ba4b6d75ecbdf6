import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, IdParams, NoContent, Page } from '../../http/schemas.ts';
import * as service from './campaigns.service.ts';
import {
  Campaign,
  CampaignListItem,
  CreateCampaignBody,
  CreatedCampaign,
  ListCampaignsQuery,
  ListSubmissionsQuery,
  Submission,
  UpdateCampaignBody,
} from './campaigns.schemas.ts';
import { campaignExamples } from './campaigns.examples.ts';

const tags = ['Campaigns'];

const CREATE_RULES =
  'Required: `templateId` and `name`. The template must be one of your organization (else 400 `validation_error` on `body.templateId`) ' +
  'with a file (409 `missing_file`) and at least one field (409 `missing_fields`); the visitor signs its first role (lowest order, or ' +
  'order 0 when it has no roles), which needs a field, every later role with fields needs a fixed `signerEmail`, and every field must be on ' +
  'a page of the file (409 `invalid_state`). ' +
  '`maxSubmissions` defaults to 1000000 (the most allowed); `expiresAt` must be in the future; `redirectUrl` must be an absolute ' +
  'http(s) URL; `brandColor` defaults to #4338CA. A campaign closes by itself when it reaches `maxSubmissions` or `expiresAt` ' +
  '(event `campaign.closed`).';

/** Campaigns: public signing links (`PUBLIC_URL/c/{slug}`) built on a template; each submission is a document. */
export async function campaignsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.get(
    '/api/v1/campaigns',
    {
      config: { scope: 'campaigns.read' },
      schema: {
        tags,
        operationId: 'listCampaigns',
        example: campaignExamples.listCampaigns,
        summary: 'List campaigns, newest first',
        description:
          "Your organization's campaigns, newest first. `status` and `search` (case-insensitive, on the name) filter.",
        querystring: ListCampaignsQuery,
        response: { 200: Page(CampaignListItem, 'The page of campaigns') },
        errorCodes: [],
      },
    },
    async (request) => service.listCampaigns(deps, authOf(request).orgId, request.query),
  );

  app.post(
    '/api/v1/campaigns',
    {
      config: { scope: 'campaigns.create' },
      schema: {
        tags,
        operationId: 'createCampaign',
        example: campaignExamples.createCampaign,
        summary: 'Create a campaign (a public signing link) from a template',
        description: CREATE_RULES,
        body: CreateCampaignBody,
        response: { 201: Data(CreatedCampaign, 'The created campaign, with its public url') },
        errorCodes: ['not_found', 'missing_file', 'missing_fields'],
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send({ data: await service.createCampaign(deps, authOf(request).orgId, request.body) }),
  );

  app.get(
    '/api/v1/campaigns/:id',
    {
      config: { scope: 'campaigns.read' },
      schema: {
        tags,
        operationId: 'getCampaign',
        example: campaignExamples.getCampaign,
        summary: 'Get a campaign',
        description: 'One campaign, with its welcome texts and its public `url`.',
        params: IdParams,
        response: { 200: Data(Campaign, 'The campaign') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.getCampaign(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.patch(
    '/api/v1/campaigns/:id',
    {
      config: { scope: 'campaigns.update' },
      schema: {
        tags,
        operationId: 'updateCampaign',
        example: campaignExamples.updateCampaign,
        summary: 'Edit a campaign, pause, close or reopen it; answers the full campaign',
        description:
          'Any create field, all optional, plus `status` (`active`, `paused`, `closed`); `slug` is read-only (400). Reopening (`active`) ' +
          'is refused while the campaign is full (409 `limit_reached`: raise `maxSubmissions` in the same request) or past its ' +
          '`expiresAt` (409 `invalid_state`). `maxSubmissions` cannot go below `submissionCount` (400); a changed `templateId` obeys ' +
          'the create rules. Closing emits `campaign.closed`.',
        params: IdParams,
        body: UpdateCampaignBody,
        response: { 200: Data(Campaign, 'The updated campaign') },
        errorCodes: ['not_found', 'limit_reached'],
      },
    },
    async (request) => ({
      data: await service.updateCampaign(
        deps,
        authOf(request).orgId,
        request.params.id,
        request.body,
      ),
    }),
  );

  app.delete(
    '/api/v1/campaigns/:id',
    {
      config: { scope: 'campaigns.delete' },
      schema: {
        tags,
        operationId: 'deleteCampaign',
        example: campaignExamples.deleteCampaign,
        summary: 'Delete a campaign for good',
        description:
          'The public link stops working at once. Submissions stay as documents, with the campaign id in `campaignId`.',
        params: IdParams,
        response: { 204: NoContent },
        errorCodes: ['not_found'],
      },
    },
    async (request, reply) => {
      await service.deleteCampaign(deps, authOf(request).orgId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/campaigns/:id/submissions',
    {
      config: { scope: 'campaigns.read' },
      schema: {
        tags,
        operationId: 'listCampaignSubmissions',
        example: campaignExamples.listCampaignSubmissions,
        summary: 'List the documents submitted through a campaign, newest first',
        description:
          'The documents submitted through the campaign, newest first, each with its signers and their emails.',
        params: IdParams,
        querystring: ListSubmissionsQuery,
        response: { 200: Page(Submission, 'The page of submissions') },
        errorCodes: ['not_found'],
      },
    },
    async (request) =>
      service.listSubmissions(deps, authOf(request).orgId, request.params.id, request.query),
  );
}
