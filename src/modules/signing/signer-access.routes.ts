import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requestMeta } from '../../http/request-meta.ts';
import { Data } from '../../http/schemas.ts';
import { actorOf } from '../documents/documents.routes.ts';
import { AccessBody, AccessResult, ResendResult } from './signer-access.schemas.ts';
import { enterAccessCode, resendInvitation } from './signer-access.ts';
import { signingExamples } from './signing.examples.ts';
import { SignerLinkParams, TokenParams } from './signing.schemas.ts';

const tags = ['Signing'];

/** A signer's access code (the signer's side) and the sender's resend of an invitation. */
export async function signerAccessRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

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
}
