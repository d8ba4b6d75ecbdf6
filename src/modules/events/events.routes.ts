import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Page } from '../../http/schemas.ts';
import { EventEnvelope, ListEventsQuery } from './events.schemas.ts';
import { listEvents } from './events.service.ts';
import { eventExamples } from './events.examples.ts';

/** The event log: every event of the organization, webhook or not. */
export async function eventsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.get(
    '/api/v1/events',
    {
      config: { scope: 'webhooks.read' },
      schema: {
        tags: ['Webhooks'],
        operationId: 'listEvents',
        example: eventExamples.listEvents,
        summary: 'List events (catch up after downtime)',
        description:
          'Every event of your organization, whether or not a webhook subscribed to it, in the envelope of a webhook delivery ' +
          '(`id` is the event id here). After an outage, read from the `created_at` of the last event you handled: ' +
          '`?createdAfter=…&order=asc`, then follow `nextCursor`. Events are kept `WEBHOOK_LOG_DAYS` days (30 by default).',
        querystring: ListEventsQuery,
        response: { 200: { ...Page(EventEnvelope), description: 'A page of events' } },
        errorCodes: [],
      },
    },
    async (request) => listEvents(deps.db, authOf(request).orgId, request.query),
  );
}
