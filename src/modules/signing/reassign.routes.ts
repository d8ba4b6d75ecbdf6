import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requestMeta } from '../../http/request-meta.ts';
import { Data } from '../../http/schemas.ts';
import { requireSigningSession } from './signer-access.ts';
import { reassignSigning } from './reassign-signing.ts';
import { ReassignBody, ReassignResult } from './reassign.schemas.ts';
import { resolveToken } from './signing-links.ts';
import { signingExamples } from './signing.examples.ts';
import { TokenParams } from './signing.schemas.ts';

/** The signer's hand-over to someone else (README "Reassign"). */
export async function reassignRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;
  // A signer with an access code needs its session here too (and is then refused: 409).
  fastify.addHook('onRequest', requireSigningSession(deps));

  app.post(
    '/api/v1/signing/:token/reassign',
    {
      // A forged, revoked or replaced link is refused before its body is read.
      onRequest: async (request) => {
        await resolveToken(deps.db, deps, (request.params as { token: string }).token);
      },
      bodyLimit: 16 * 1024,
      schema: {
        tags: ['Signing'],
        security: [],
        operationId: 'reassignSigning',
        example: signingExamples.reassignSigning,
        summary: 'Hand over to someone else (documents with `allowReassign`)',
        description:
          'Only the signer or approver whose turn it is (409 `not_your_turn`), on a document with `allowReassign` and for a signer without an `accessCode` (409 `reassign_not_allowed`). ' +
          'The signer row keeps its order, role and fields and takes the new `name`, `email` and `phone` (null when not given); what the previous person did on it (viewing, consent, identity evidence, one-time codes) is forgotten. ' +
          'Every live link of the signer answers 410 `link_replaced` from then on; the new person is mailed an invitation with a link of their own (status `sent`). ' +
          'Audited as `signer.reassigned` with the reason, and delivered as the `signer.reassigned` event with `previous` and `reason`. The new address must differ from the current one (400 `validation_error`).',
        params: TokenParams,
        body: ReassignBody,
        response: { 200: Data(ReassignResult, 'The new person is invited') },
        errorCodes: [
          'forbidden',
          'link_locked',
          'link_replaced',
          'invalid_state',
          'access_code_required',
          'not_your_turn',
          'reassign_not_allowed',
        ],
      },
    },
    async (request) => ({
      data: await reassignSigning(deps, request.params.token, request.body, requestMeta(request)),
    }),
  );
}
