import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, errors, IdParams, NoContent, Page } from '../../http/schemas.ts';
import * as service from './webhooks.service.ts';
import {
  CreatedWebhook,
  CreateWebhookBody,
  Delivery,
  DeliveryParams,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  UpdateWebhookBody,
  Webhook,
  WebhookWithSecret,
} from './webhooks.schemas.ts';

const tags = ['Webhooks'];

export async function webhooksRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = fastify.deps;

  app.post(
    '/api/v1/webhooks',
    {
      config: { scope: 'webhooks.create' },
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Register a webhook; the response carries its signing secret, shown only this once',
        description:
          'At most 10 webhooks per organization (409 `limit_reached`). The URL is refused (400) when it is not http(s), not HTTPS in production, or its host is or resolves to a private, loopback, link-local or other non-public address. Note: in this response `events` is a string holding a serialized JSON array; everywhere else it is an array.',
        body: CreateWebhookBody,
        response: { 201: Data(CreatedWebhook), ...errors(400, 409, 413) },
      },
    },
    async (request, reply) => reply.code(201).send({ data: await service.createWebhook(deps, authOf(request).orgId, request.body) }),
  );

  app.get(
    '/api/v1/webhooks',
    {
      config: { scope: 'webhooks.read' },
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'List webhooks, newest first (never their secrets)',
        querystring: ListWebhooksQuery,
        response: { 200: Page(Webhook), ...errors(400) },
      },
    },
    async (request) => service.listWebhooks(deps, authOf(request).orgId, request.query),
  );

  app.get(
    '/api/v1/webhooks/:id',
    {
      config: { scope: 'webhooks.read' },
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'Get a webhook (without its secret)',
        params: IdParams,
        response: { 200: Data(Webhook), ...errors(400, 404) },
      },
    },
    async (request) => ({ data: await service.getWebhook(deps, authOf(request).orgId, request.params.id) }),
  );

  app.patch(
    '/api/v1/webhooks/:id',
    {
      config: { scope: 'webhooks.update' },
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Change a webhook; `status: "active"` reactivates it and resets failureCount',
        description: 'Setting `status` to `inactive` cancels its pending deliveries. A new `url` is checked like at registration.',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: Data(Webhook), ...errors(400, 404, 413) },
      },
    },
    async (request) => ({ data: await service.updateWebhook(deps, authOf(request).orgId, request.params.id, request.body) }),
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      config: { scope: 'webhooks.delete' },
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook; its pending deliveries are cancelled',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteWebhook(deps, authOf(request).orgId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      config: { scope: 'webhooks.read' },
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of a webhook, newest first, each delivery with its attempts',
        params: IdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: Page(Delivery), ...errors(400, 404) },
      },
    },
    async (request) => service.listDeliveries(deps, authOf(request).orgId, request.params.id, request.query),
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:deliveryId/retry',
    {
      config: { scope: 'webhooks.update' },
      schema: {
        tags,
        operationId: 'retryWebhookDelivery',
        summary: 'Send a delivery again now, with the same delivery id',
        description: 'Answers 202 with the queued delivery. Refused (409 `invalid_state`) while the webhook is inactive.',
        params: DeliveryParams,
        response: { 202: Data(Delivery), ...errors(400, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ data: await service.retryDelivery(deps, authOf(request).orgId, request.params.id, request.params.deliveryId) }),
  );

  app.post(
    '/api/v1/webhooks/:id/test',
    {
      config: { scope: 'webhooks.update' },
      schema: {
        tags,
        operationId: 'testWebhook',
        summary: 'Send a `webhook.test` event to this webhook only',
        description: 'Answers 202 with the queued delivery, whatever event types the webhook subscribes to. Refused (409 `invalid_state`) while the webhook is inactive.',
        params: IdParams,
        response: { 202: Data(Delivery), ...errors(400, 404, 409) },
      },
    },
    async (request, reply) => reply.code(202).send({ data: await service.sendTestEvent(deps, authOf(request).orgId, request.params.id) }),
  );

  app.post(
    '/api/v1/webhooks/:id/rotate-secret',
    {
      config: { scope: 'webhooks.update' },
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret; the new one is returned only this once',
        description: 'Takes effect at once: every attempt from now on, retries included, is signed with the new secret.',
        params: IdParams,
        response: { 200: Data(WebhookWithSecret), ...errors(400, 404) },
      },
    },
    async (request) => ({ data: await service.rotateSecret(deps, authOf(request).orgId, request.params.id) }),
  );
}
