import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authOf } from '../../http/auth.ts';
import { Data } from '../../http/schemas.ts';
import {
  findLogo,
  getOrganization,
  toOrganization,
  updateOrganizationRow,
} from './organization.service.ts';
import { OrganizationSchema, UpdateOrganizationBody } from './organization.schemas.ts';
import { organizationExamples } from './organization.examples.ts';

const tags = ['Organization'];

/** The caller's own organization: its name and the branding signers see. */
export async function organizationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.get(
    '/api/v1/organization',
    {
      config: { scope: 'organization.read' },
      schema: {
        tags,
        operationId: 'getOrganization',
        example: organizationExamples.getOrganization,
        summary: 'Get your organization',
        description:
          'The organization that owns the API key: the name signers read ("Acme Consulting sent you …") and its branding.',
        response: { 200: { ...Data(OrganizationSchema), description: 'The organization' } },
        errorCodes: [],
      },
    },
    async (request) => ({
      data: await getOrganization(deps.db, deps.config.publicUrl, authOf(request).orgId),
    }),
  );

  app.patch(
    '/api/v1/organization',
    {
      config: { scope: 'organization.write' },
      schema: {
        tags,
        operationId: 'updateOrganization',
        example: organizationExamples.updateOrganization,
        summary: 'Rename your organization or change its branding',
        description:
          'Every field is optional; `null` clears `brandColor`, `logo` and `replyTo`. The name, colour and logo appear on signing and campaign pages ' +
          "(a campaign's own `brandColor` wins on its page) and in every mail sent from then on; `replyTo` becomes the Reply-To of mail to signers. " +
          "`embedOrigins` lists the sites that may frame your signing and campaign pages (their `Content-Security-Policy: frame-ancestors` is `'self'` and these; with none, no site may). " +
          'A logo whose bytes are not the declared PNG or JPEG is 400; one over 256 KB is 413; an entry of `embedOrigins` that is not an origin is 400.',
        body: UpdateOrganizationBody,
        response: { 200: { ...Data(OrganizationSchema), description: 'The updated organization' } },
        errorCodes: ['payload_too_large'],
      },
    },
    async (request) => {
      const row = await updateOrganizationRow(
        deps.db,
        authOf(request).orgId,
        request.body,
        deps.clock.now(),
        deps.config.production,
      );
      return { data: toOrganization(deps.config.publicUrl, row) };
    },
  );

  app.get(
    '/logos/:orgId',
    {
      schema: {
        hide: true,
        params: Type.Object({ orgId: Type.String({ minLength: 1, maxLength: 64 }) }),
        querystring: Type.Object({ v: Type.Optional(Type.String({ maxLength: 64 })) }),
      },
    },
    async (request, reply) => {
      const logo = await findLogo(deps.db, request.params.orgId);
      if (!logo) return reply.code(404).type('text/plain').send('Not found');
      // The URL carries the image's version, so a browser or mail proxy may keep it.
      return reply
        .type(logo.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(logo.bytes);
    },
  );
}
