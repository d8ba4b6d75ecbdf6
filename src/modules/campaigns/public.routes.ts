import { contentDisposition } from '../../http/content-disposition.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requestMeta } from '../../http/request-meta.ts';
import { Data } from '../../http/schemas.ts';
import { OtpResult } from '../signing/signing.schemas.ts';
import * as service from './public.service.ts';
import { openCampaign } from './public.service.ts';
import {
  OtpBody,
  PublicCampaign,
  SlugParams,
  SubmissionBody,
  SubmissionResult,
} from './public.schemas.ts';
import { submitToCampaign } from './submission.ts';
import { campaignExamples } from './campaigns.examples.ts';

const tags = ['Public campaigns'];

/**
 * What every public campaign route can refuse (no API key, so no `unauthorized`/`insufficient_scope`): no campaign has the slug
 * (`not_found`), or it takes no submissions: paused, closed or expired (`invalid_state`) or full (`limit_reached`);
 * `details[0].reason` is `paused`, `closed`, `expired` or `full`.
 */
const CAMPAIGN_CODES = ['not_found', 'invalid_state', 'limit_reached'] as const;

/**
 * The public side of a campaign: what the page at `PUBLIC_URL/c/{slug}` calls. No API key: the
 * slug is the capability, and only active campaigns answer.
 */
export async function publicCampaignRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.get(
    '/api/v1/public/campaigns/:slug',
    {
      schema: {
        tags,
        security: [],
        operationId: 'getPublicCampaign',
        example: campaignExamples.getPublicCampaign,
        summary: 'What the public page of a campaign shows (no API key)',
        description:
          "Branding, welcome texts, what to collect (`collectPhone`, `requireOtp`), the document and the visitor's fields (the template's first role). " +
          'A paused, closed, expired or full campaign answers 409.',
        params: SlugParams,
        response: { 200: Data(PublicCampaign, 'The public campaign') },
        errorCodes: CAMPAIGN_CODES,
      },
    },
    async (request) => ({ data: await service.getPublicCampaign(deps, request.params.slug) }),
  );

  app.get(
    '/api/v1/public/campaigns/:slug/file',
    {
      schema: {
        tags,
        security: [],
        operationId: 'getPublicCampaignFile',
        example: campaignExamples.getPublicCampaignFile,
        summary: 'The PDF a campaign visitor signs (no API key)',
        description:
          "The template's PDF, for the public campaign page to render. No API key. A paused, closed, expired or full campaign answers 409.",
        params: SlugParams,
        response: {
          200: Type.Unsafe<unknown>({
            description: 'The PDF bytes',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          }),
        },
        errorCodes: [...CAMPAIGN_CODES, 'storage_unavailable'],
      },
    },
    async (request, reply) => {
      const file = await service.openPublicFile(deps, request.params.slug);
      reply.headers({
        'content-type': 'application/pdf',
        'content-disposition': contentDisposition('inline', `${file.name}.pdf`),
        'content-length': file.size,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      return reply.send(file.stream);
    },
  );

  /** An unknown, paused or closed campaign is refused before the body is read. */
  const liveCampaign = async (request: FastifyRequest) => {
    await openCampaign(deps, (request.params as { slug: string }).slug);
  };

  app.post(
    '/api/v1/public/campaigns/:slug/otp',
    {
      onRequest: liveCampaign,
      bodyLimit: 16 * 1024,
      schema: {
        tags,
        security: [],
        operationId: 'sendPublicCampaignOtp',
        example: campaignExamples.sendPublicCampaignOtp,
        summary:
          'Email a 6-digit code to the address the visitor will submit (campaigns with `requireOtp`)',
        description:
          'The code is valid 10 minutes and may be tried 5 times; a new code voids the previous one; a code makes one submission. One code per minute ' +
          'and 5 per hour per address and campaign (429 `rate_limited`). 409 `invalid_state` when the campaign does not use codes. After 25 wrong codes for an ' +
          'address on this campaign, that address can no longer sign it: 403 `link_locked`, and no code is mailed.',
        params: SlugParams,
        body: OtpBody,
        response: { 200: Data(OtpResult, 'Where the code went and until when it is valid') },
        errorCodes: [...CAMPAIGN_CODES, 'link_locked'],
      },
    },
    async (request) => ({
      data: await service.requestOtp(
        deps,
        request.params.slug,
        request.body.email,
        request.headers['accept-language'],
      ),
    }),
  );

  app.post(
    '/api/v1/public/campaigns/:slug/submissions',
    {
      onRequest: liveCampaign,
      // A drawn signature may be 1 MB on its own, plus initials and values (as on the signing API).
      bodyLimit: 4 * 1024 * 1024,
      schema: {
        tags,
        security: [],
        operationId: 'submitToCampaign',
        example: campaignExamples.submitToCampaign,
        summary: 'Submit a signed copy through a campaign (no API key)',
        description:
          'Creates a document (`campaignId` and `templateId` set, the template’s file and fields copied) whose first signer is the visitor, and ' +
          'records their values and signature exactly like `POST /api/v1/signing/{token}/complete` (same rules, same 400 details, keyed by the field ' +
          'ids of `GET …/{slug}`). The document then completes like any other (signed PDF, audit certificate, emails), or, when the template has ' +
          'later roles with fixed signers, those are invited by email. `phone` is required when `collectPhone`; `otp` when `requireOtp` (401 ' +
          '`otp_required`, 403 `invalid_otp`). For `requireKyc` campaigns `values` and `signature` are not taken: the visitor continues at ' +
          '`signingUrl`. A campaign at `maxSubmissions` answers 409 `limit_reached`, and the submission that fills the last slot closes it. ' +
          'Answers where to send the visitor next (`redirectUrl`).',
        params: SlugParams,
        body: SubmissionBody,
        response: { 201: Data(SubmissionResult, 'The submission is recorded') },
        errorCodes: [
          ...CAMPAIGN_CODES,
          'otp_required',
          'invalid_otp',
          'link_locked',
          'storage_unavailable',
        ],
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await submitToCampaign(
          deps,
          request.params.slug,
          request.body,
          requestMeta(request),
          request.headers['accept-language'],
        ),
      }),
  );
}
