import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Data } from '../../http/schemas.ts';
import { matchDocument, verifyUpload, VERIFY_MAX_BYTES } from './verify.service.ts';
import { VerificationReport } from './verify.schemas.ts';
import { verifyExamples } from './verify.examples.ts';
import { VerifyQueue } from './verify-queue.ts';

/** Requests per minute per client IP on the public check (no key; each one hashes and parses up to 50 MB). */
const PUBLIC_VERIFY_PER_MINUTE = 10;

const Binary = { type: 'string', format: 'binary' } as const;

/**
 * `POST /api/v1/verify` (documents.read) and `POST /verify/check` (public, behind the
 * `/verify` page): the raw PDF in, the report out. In their own plugin, whose content-type
 * parser hands the body over as a stream, so a 50 MB file never sits in memory. Each has its own
 * bounded queue and thread (verify-queue.ts): a full queue answers 503 `busy` before the body is read.
 */
export async function verifyRoutes(fastify: FastifyInstance): Promise<void> {
  const deps = fastify.deps;
  const { publicVerifyQueue, verifyQueue } = deps.config.exposure;
  const queues = {
    public: new VerifyQueue(publicVerifyQueue, 'public checks'),
    keyed: new VerifyQueue(verifyQueue, 'checks with a key'),
  };
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  const length = (header: string | undefined) =>
    header && /^[0-9]+$/.test(header) ? Number(header) : undefined;

  fastify.post(
    '/api/v1/verify',
    {
      bodyLimit: VERIFY_MAX_BYTES,
      config: {
        scope: 'documents.read',
        // Nothing is stored, so a repeat does no harm; the body is a stream, not a value to compare.
        idempotency: false,
        // Documented with its binary body; the runtime route takes no body schema (the body is a stream).
        swaggerTransform: ({ schema, url }) => ({
          url,
          schema: {
            ...schema,
            body: {
              description: `The PDF bytes, at most ${VERIFY_MAX_BYTES} bytes`,
              content: { 'application/pdf': { schema: Binary } },
            },
          },
        }),
      },
      schema: {
        tags: ['Verification'],
        operationId: 'verifyPdf',
        example: verifyExamples.verifyPdf,
        summary: 'Verify the signatures of a PDF',
        description:
          `The raw PDF as the body (any \`Content-Type\`; at most ${VERIFY_MAX_BYTES} bytes, 413). Any PDF: Signet's or another signer's. ` +
          'Each signature is checked against the bytes it covers and its certificate; its RFC 3161 timestamp against the signature; ' +
          'the DSS for revocation data; document timestamps for B-LTA. Trust in the certificates themselves (a trusted root) is the ' +
          "reader's to judge: `certificate` says who they are. `document` is your organization's document whose signed file or original " +
          'has this SHA-256. Not a PDF, or one that cannot be read: 415. Nothing is stored, so `Idempotency-Key` is ignored (a repeat checks ' +
          `the file again). At most ${verifyQueue} checks with a key at once per instance (\`VERIFY_QUEUE\`), in a queue of their own, never ` +
          "behind the public page's: more answer 503 `busy` with `Retry-After`, before the body is read.",
        response: { 200: { ...Data(VerificationReport), description: 'The report' } },
        errorCodes: ['payload_too_large', 'unsupported_media_type', 'busy'],
      },
    },
    async (request) => {
      const leave = queues.keyed.enter();
      try {
        const { report, sha256 } = await verifyUpload(
          deps.pdf,
          request.body as Readable | undefined,
          length(request.headers['content-length']),
          'keyed',
        );
        return {
          data: { ...report, document: await matchDocument(deps.db, sha256, request.auth!.orgId) },
        };
      } finally {
        leave();
      }
    },
  );

  fastify.post(
    '/verify/check',
    {
      bodyLimit: VERIFY_MAX_BYTES,
      config: { rateLimit: { max: PUBLIC_VERIFY_PER_MINUTE, timeWindow: 60_000 } },
      schema: { hide: true },
    },
    async (request) => {
      const leave = queues.public.enter();
      try {
        const { report } = await verifyUpload(
          deps.pdf,
          request.body as Readable | undefined,
          length(request.headers['content-length']),
          'public',
        );
        // The public page tells whether the file is a Signet document, never whose or what it is.
        return { data: { ...report, document: null } };
      } finally {
        leave();
      }
    },
  );
}
