import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requestMeta } from '../../http/request-meta.ts';
import { Data } from '../../http/schemas.ts';
import { actorOf } from '../documents-core/document-access.ts';
import {
  AccessBody,
  AccessResult,
  ResendResult,
  SigningLinkBody,
} from './signer-access.schemas.ts';
import { enterAccessCode, requireSigningSession, resendInvitation } from './signer-access.ts';
import { giveConsent } from './consent.ts';
import { resolveToken } from './signing-links.ts';
import { requireOpen } from '../documents-core/signing-rules.ts';
import { signingExamples } from './signing.examples.ts';
import { ConsentResult, SignerLinkParams, SigningLink, TokenParams } from './signing.schemas.ts';
import { createSignerLink } from './signer-link.service.ts';

const tags = ['Signing'];

/** A signer's access code (the signer's side), and the sender's resend of an invitation and fresh links. */
export async function signerAccessRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;
  // The consent route, like every call of a signer with an access code, needs its session.
  fastify.addHook('onRequest', requireSigningSession(deps));

  app.post(
    '/api/v1/signing/:token/access',
    {
      bodyLimit: 16 * 1024,
      config: { signingSession: false },
      schema: {
        tags,
        security: [],
        operationId: 'enterSigningAccessCode',
        example: signingExamples.enterSigningAccessCode,
        summary: 'Enter the access code the sender gave the signer; answers a signing session',
        description:
          'For a signer with an `accessCode`. The session lasts 1 hour and belongs to the signer (all of its links); every other call of the signing link then needs it in `X-Signing-Session` (401 `access_code_required` without). A wrong code is 403 `invalid_access_code`; the fifth wrong code locks every link of the signer (403 `link_locked`) until the sender issues a new link (`…/link`) or resends the invitation (`…/resend`). Each try is audited (`signer.access_code_failed`, `signer.authenticated`). A signer without an access code: 409 `invalid_state`.',
        params: TokenParams,
        body: AccessBody,
        response: { 200: Data(AccessResult, 'The signing session') },
        errorCodes: ['forbidden', 'link_locked', 'invalid_state', 'invalid_access_code'],
      },
    },
    async (request) => ({
      data: await enterAccessCode(
        deps,
        request.params.token,
        request.body.accessCode,
        requestMeta(request),
      ),
    }),
  );

  app.post(
    '/api/v1/signing/:token/consent',
    {
      bodyLimit: 16 * 1024,
      schema: {
        tags,
        security: [],
        operationId: 'giveSigningConsent',
        example: signingExamples.giveSigningConsent,
        summary: 'Accept the consent to use electronic records and signatures',
        description:
          'When the organization sets `requireConsent`, the signer accepts the text the session shows (`consent.text`) before the file is served (`GET …/file` answers 409 `consent_required` until then) and before completing (or sends `consent: true` with `complete`). The exact text, its locale and its SHA-256 are kept with the signer, audited as `signer.consented` and delivered as the `signer.consented` event. A consent counts for the text it accepted: when the organization changes its text, signers who have not completed are asked again. To withdraw consent, decline with the reason `consent_withdrawn`. Accepting again the same text answers the first consent. An organization that does not ask for consent: 409 `invalid_state`.',
        params: TokenParams,
        response: { 200: Data(ConsentResult, 'The consent is kept') },
        errorCodes: ['forbidden', 'link_locked', 'invalid_state', 'access_code_required'],
      },
    },
    async (request) => {
      const { signer, doc } = await resolveToken(deps.db, deps, request.params.token);
      requireOpen(doc, signer);
      return { data: await giveConsent(deps, doc, signer, requestMeta(request)) };
    },
  );

  app.post(
    '/api/v1/documents/:id/signers/:signerId/resend',
    {
      config: { scope: 'documents.send' },
      schema: {
        tags,
        operationId: 'resendSigningInvitation',
        example: signingExamples.resendSigningInvitation,
        summary: 'Mail the signer a fresh invitation with a new link; earlier links stop working',
        description:
          'The document must be `pending` or `action_required` and the signer a `signer` or `approver` who has not finished (409 `invalid_state`). Every earlier link of the signer answers 403 `forbidden` from then on, and its wrong codes (one-time and access codes) are forgotten, which unlocks a signer whose links were locked (`link_locked`). Audited as `signer.invitation_resent`.',
        params: SignerLinkParams,
        response: { 200: Data(ResendResult, 'The invitation is queued') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request) => ({
      data: await resendInvitation(
        deps,
        actorOf(request),
        request.params.id,
        request.params.signerId,
      ),
    }),
  );

  app.post(
    '/api/v1/documents/:id/signers/:signerId/link',
    {
      bodyLimit: 4 * 1024,
      // The body is optional: no body is `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
      config: { scope: 'documents.send' },
      schema: {
        tags,
        operationId: 'createSigningLink',
        example: signingExamples.createSigningLink,
        summary: 'A fresh signing link for a signer (embedded signing)',
        description:
          'The document must be `pending` or `action_required` and the signer a `signer` or `approver` who has not finished (409 `invalid_state`). `expiresIn` (seconds, optional body): for a signer with `delivery: "embedded"` 60 to 86400, default 3600 (one hour); for a signer reached by email 60 to 2592000, default 30 days. The link never outlives the document’s `expiresAt`; links issued earlier stay valid. All of a signer’s links stop working once the signer completes or declines, when the document leaves `pending`/`action_required`, or when the sender corrects the signer’s email address.',
        params: SignerLinkParams,
        body: SigningLinkBody,
        response: { 200: Data(SigningLink, 'A fresh signing link') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request) => ({
      data: await createSignerLink(
        deps,
        actorOf(request),
        request.params.id,
        request.params.signerId,
        request.body,
      ),
    }),
  );
}
