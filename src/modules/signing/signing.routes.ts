import { contentDisposition } from '../../http/content-disposition.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requestMeta } from '../../http/request-meta.ts';
import { requireSigningSession } from './signer-access.ts';
import { Data } from '../../http/schemas.ts';
import { actorOf } from '../documents-core/document-access.ts';
import * as service from './signing.service.ts';
import { declineSigning } from './decline-signing.ts';
import { sendOtp } from './signing-otp.ts';
import { decideVerification, precheckIdentity, submitIdentity } from './signing-identity.ts';
import { resolveToken } from './signing-links.ts';
import {
  CompleteBody,
  CompleteResult,
  DeclineBody,
  DeclineResult,
  IDENTITY_CONTENT_TYPES,
  IdentityResult,
  OtpResult,
  SignerLinkParams,
  SigningSession,
  SIGNING_LIMITS,
  TokenParams,
  VerificationBody,
  VerificationResult,
} from './signing.schemas.ts';
import { signingExamples } from './signing.examples.ts';

const tags = ['Signing'];

const COMPLETE_RULES =
  'Sequential documents: only the open signer or approver with the lowest order may complete (409 `not_your_turn`). Every required field needs a value (400 `validation_error`, one detail per field). Signature and initials fields take `signature` (typed: 1-200 characters; drawn: a PNG data URL of at most 1 MB) unless a value is given for them. With an `otpMethod` (`email` or `sms`, the signer’s or else the document’s), `otp` must be the code from `POST …/otp` (401 `otp_required`, 403 `invalid_otp`). With `requireKyc`, the identity evidence must be approved first (409 `verification_required`).';

/**
 * What every token-authenticated route can refuse (no API key, so no `unauthorized`/`insufficient_scope`):
 * a link that is not valid, a document or signer that is finished, a signer locked out by wrong codes,
 * a signer with an access code calling without the session of `POST …/access`.
 */
const LINK_CODES = ['forbidden', 'link_locked', 'invalid_state', 'access_code_required'] as const;

const PdfResponse = {
  description: 'The PDF bytes',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

/**
 * The signer's side: public routes authenticated by the secret token of a signing link
 * (`PUBLIC_URL/sign/{token}`), and the sender's endpoints that manage a signer's signing.
 */
export async function signingRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;
  // A signer with an access code: every call of its links needs the session of `POST …/access`.
  fastify.addHook('onRequest', requireSigningSession(deps));

  /** A forged, revoked or expired link is refused before its body is read. */
  const knownToken = async (request: FastifyRequest) => {
    await resolveToken(deps.db, deps, (request.params as { token: string }).token);
  };

  // Identity photos arrive as raw image bytes; this parser exists only inside this plugin.
  app.addContentTypeParser(
    [...IDENTITY_CONTENT_TYPES],
    { parseAs: 'buffer', bodyLimit: SIGNING_LIMITS.identityMaxBytes },
    (_req, body, done) => done(null, body),
  );

  app.get(
    '/api/v1/signing/:token',
    {
      schema: {
        tags,
        security: [],
        operationId: 'getSigningSession',
        example: signingExamples.getSigningSession,
        summary: 'What the signer sees: the document, their fields, whether it is their turn',
        description:
          'Authenticated by the token of the signing link. The first call marks the signer as having viewed the document (audit `document.viewed`; events `signer.viewed` and `document.viewed`). Refused once the signer has completed or declined, or when the document is no longer `pending`/`action_required` (409 `invalid_state`).',
        params: TokenParams,
        response: { 200: Data(SigningSession, 'The signing session') },
        errorCodes: [...LINK_CODES],
      },
    },
    async (request) => ({
      data: await service.getSession(deps, request.params.token, requestMeta(request)),
    }),
  );

  app.get(
    '/api/v1/signing/:token/file',
    {
      schema: {
        tags,
        security: [],
        operationId: 'getSigningFile',
        example: signingExamples.getSigningFile,
        summary:
          'The PDF to sign (or, with a download link from the completion email, the signed PDF)',
        description:
          "The PDF the signer is asked to sign, for the signing page to render. Authenticated by the signing link's token; no API key.",
        params: TokenParams,
        response: { 200: PdfResponse },
        errorCodes: [...LINK_CODES, 'not_found', 'storage_unavailable'],
      },
    },
    async (request, reply) => {
      const file = await service.openFile(deps, request.params.token);
      reply.headers({
        'content-type': 'application/pdf',
        'content-disposition': contentDisposition('inline', file.name),
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      });
      if (file.size !== null) reply.header('content-length', file.size);
      return reply.send(file.stream);
    },
  );

  app.post(
    '/api/v1/signing/:token/otp',
    {
      onRequest: knownToken,
      bodyLimit: 16 * 1024,
      schema: {
        tags,
        security: [],
        operationId: 'sendSigningOtp',
        example: signingExamples.sendSigningOtp,
        summary: 'Send the signer a 6-digit code by email or SMS (`otpMethod`)',
        description:
          'The signer’s `otpMethod`, else its document’s, says how: `email` mails the code, `sms` texts it to the signer’s `phone` through `SMS_URL` (answered at once, `method: "sms"` and the masked phone in `sentTo`; the message is sent by a background job, retried only while the code is valid; a message that cannot be delivered makes the document `action_required` with `sms_undeliverable`, and asking again is 409 `invalid_state` until the sender corrects the phone). A signer without a code method: 409 `invalid_state`. The code is valid 10 minutes and may be tried 5 times; a new code voids the previous one. One code per minute and 5 per hour per signer (429 `rate_limited`). Only the signer whose turn it is may ask (409 `not_your_turn`). After 25 wrong codes over the life of its links, every link of the signer answers 403 `link_locked` until the sender issues a new one.',
        params: TokenParams,
        response: { 200: Data(OtpResult, 'Where the code went and until when it is valid') },
        errorCodes: [...LINK_CODES],
      },
    },
    async (request) => ({ data: await sendOtp(deps, request.params.token, requestMeta(request)) }),
  );

  app.post(
    '/api/v1/signing/:token/complete',
    {
      onRequest: knownToken,
      // A drawn signature may be 1 MB on its own, plus initials and values.
      bodyLimit: 4 * 1024 * 1024,
      schema: {
        tags,
        security: [],
        operationId: 'completeSigning',
        example: signingExamples.completeSigning,
        summary: "Submit the signer's values and signature",
        description: `${COMPLETE_RULES} When the last signer or approver completes, the signed PDF is produced in the background and the document becomes \`completed\` once it exists.`,
        params: TokenParams,
        body: CompleteBody,
        response: { 200: Data(CompleteResult, 'The signature is recorded') },
        errorCodes: [
          ...LINK_CODES,
          'otp_required',
          'invalid_otp',
          'not_your_turn',
          'verification_required',
        ],
      },
    },
    async (request) => ({
      data: await service.completeSigning(
        deps,
        request.params.token,
        request.body,
        requestMeta(request),
      ),
    }),
  );

  app.post(
    '/api/v1/signing/:token/decline',
    {
      onRequest: knownToken,
      bodyLimit: 16 * 1024,
      schema: {
        tags,
        security: [],
        operationId: 'declineSigning',
        example: signingExamples.declineSigning,
        summary: 'Decline to sign, with a reason',
        description:
          'The document becomes `declined`; recipients who had not finished become `cancelled`; every recipient and the organization admin are emailed. Any signer may decline at any time, turn or not.',
        params: TokenParams,
        body: DeclineBody,
        response: { 200: Data(DeclineResult, 'The document is declined') },
        errorCodes: [...LINK_CODES],
      },
    },
    async (request) => ({
      data: await declineSigning(deps, request.params.token, request.body, requestMeta(request)),
    }),
  );

  app.post(
    '/api/v1/signing/:token/identity',
    {
      // Refused from the token alone before up to 10 MB of body is read.
      onRequest: async (request) =>
        precheckIdentity(deps, (request.params as { token: string }).token),
      schema: {
        tags,
        security: [],
        operationId: 'submitSigningIdentity',
        example: signingExamples.submitSigningIdentity,
        summary: 'Upload a photo of an ID (documents with `requireKyc`)',
        description:
          'The request body is the image itself (`Content-Type: image/png`, `image/jpeg` or `image/webp`, at most 10 MB and 25 megapixels). It is stored as an attachment of the document, which becomes `action_required` until the sender approves or rejects it (the organization admin is emailed once per review). Sending again while the evidence awaits review replaces it. At most `IDENTITY_MAX_ATTEMPTS` (3) uploads between two reviews (409 `invalid_state`).',
        params: TokenParams,
        body: {
          content: Object.fromEntries(
            IDENTITY_CONTENT_TYPES.map((t) => [t, { schema: { description: 'The image bytes' } }]),
          ),
        },
        response: { 200: Data(IdentityResult, 'The evidence is stored and awaits review') },
        errorCodes: [
          ...LINK_CODES,
          'payload_too_large',
          'unsupported_media_type',
          'storage_unavailable',
        ],
      },
    },
    async (request) => {
      const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const contentType = String(request.headers['content-type'] ?? '')
        .split(';')[0]
        .trim()
        .toLowerCase();
      return {
        data: await submitIdentity(
          deps,
          request.params.token,
          { bytes, contentType },
          requestMeta(request),
        ),
      };
    },
  );

  app.post(
    '/api/v1/documents/:id/signers/:signerId/verification',
    {
      config: { scope: 'documents.send' },
      schema: {
        tags,
        operationId: 'reviewSignerIdentity',
        example: signingExamples.reviewSignerIdentity,
        summary: "Approve or reject a signer's identity evidence (`requireKyc`)",
        description:
          'Only while evidence awaits review (409 `invalid_state` otherwise). `approve` lets the signer complete; `reject` emails the signer (with `reason`) to upload again. The document returns to `pending` when nothing else needs the sender.',
        params: SignerLinkParams,
        body: VerificationBody,
        response: { 200: Data(VerificationResult, 'The review is recorded') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request) => ({
      data: await decideVerification(
        deps,
        actorOf(request),
        request.params.id,
        request.params.signerId,
        request.body,
      ),
    }),
  );
}
