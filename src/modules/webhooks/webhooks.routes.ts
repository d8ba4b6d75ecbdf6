import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { authOf } from '../../http/auth.ts';
import { Data, IdParams, NoContent, Page } from '../../http/schemas.ts';
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
import { webhookExamples } from './webhooks.examples.ts';

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
        example: webhookExamples.createWebhook,
        summary:
          'Register a webhook; the response carries its signing secret, shown only this once',
        description:
          'At most 10 webhooks per organization (409 `limit_reached`). The URL is refused (400) when it is not http(s), not HTTPS in production, or its host is or resolves to a private, loopback, link-local or other non-public address. Note: in this response `events` is a string holding a serialized JSON array; everywhere else it is an array.',
        body: CreateWebhookBody,
        response: {
          201: Data(CreatedWebhook, 'The webhook, with its secret (shown only this once)'),
        },
        errorCodes: ['limit_reached'],
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send({ data: await service.createWebhook(deps, authOf(request).orgId, request.body) }),
  );

  app.get(
    '/api/v1/webhooks',
    {
      config: { scope: 'webhooks.read' },
      schema: {
        tags,
        operationId: 'listWebhooks',
        example: webhookExamples.listWebhooks,
        summary: 'List webhooks, newest first (never their secrets)',
        description:
          "Your organization's webhooks, newest first, without their secrets. `status` filters to `active` or `inactive` ones.",
        querystring: ListWebhooksQuery,
        response: { 200: Page(Webhook, 'The page of webhooks') },
        errorCodes: [],
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
        example: webhookExamples.getWebhook,
        summary: 'Get a webhook (without its secret)',
        description:
          'One webhook, without its secret (it is shown only in the create and rotate-secret responses). `events` is an array here.',
        params: IdParams,
        response: { 200: Data(Webhook, 'The webhook') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.getWebhook(deps, authOf(request).orgId, request.params.id),
    }),
  );

  app.patch(
    '/api/v1/webhooks/:id',
    {
      config: { scope: 'webhooks.update' },
      schema: {
        tags,
        operationId: 'updateWebhook',
        example: webhookExamples.updateWebhook,
        summary: 'Change a webhook; `status: "active"` reactivates it and resets failureCount',
        description:
          'Setting `status` to `inactive` holds its pending deliveries (kept, not attempted); `active` resets `failureCount` and sends them. A new `url` is checked like at registration.',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: Data(Webhook, 'The updated webhook') },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.updateWebhook(
        deps,
        authOf(request).orgId,
        request.params.id,
        request.body,
      ),
    }),
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      config: { scope: 'webhooks.delete' },
      schema: {
        tags,
        operationId: 'deleteWebhook',
        example: webhookExamples.deleteWebhook,
        summary: 'Delete a webhook; its pending deliveries are cancelled',
        description: 'Deletes the webhook and stops its pending deliveries.',
        params: IdParams,
        response: { 204: NoContent },
        errorCodes: ['not_found'],
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
        example: webhookExamples.listWebhookDeliveries,
        summary: 'The delivery log of a webhook, newest first, each delivery with its attempts',
        description:
          'The delivery log of one webhook, newest first: each event sent to it with its status (`pending`, `succeeded`, `failed`), attempts, the last HTTP status and duration.',
        params: IdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: Page(Delivery, 'The page of deliveries') },
        errorCodes: ['not_found'],
      },
    },
    async (request) =>
      service.listDeliveries(deps, authOf(request).orgId, request.params.id, request.query),
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:deliveryId/retry',
    {
      config: { scope: 'webhooks.update' },
      schema: {
        tags,
        operationId: 'retryWebhookDelivery',
        example: webhookExamples.retryWebhookDelivery,
        summary: 'Send a delivery again now, with the same delivery id',
        description:
          'Answers 202 with the queued delivery. Refused (409 `invalid_state`) while the webhook is inactive.',
        params: DeliveryParams,
        response: { 202: Data(Delivery, 'The delivery, queued again') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request, reply) =>
      reply.code(202).send({
        data: await service.retryDelivery(
          deps,
          authOf(request).orgId,
          request.params.id,
          request.params.deliveryId,
        ),
      }),
  );

  app.post(
    '/api/v1/webhooks/:id/test',
    {
      config: { scope: 'webhooks.update' },
      schema: {
        tags,
        operationId: 'testWebhook',
        example: webhookExamples.testWebhook,
        summary: 'Send a `webhook.test` event to this webhook only',
        description:
          'Answers 202 with the queued delivery, whatever event types the webhook subscribes to. Refused (409 `invalid_state`) while the webhook is inactive.',
        params: IdParams,
        response: { 202: Data(Delivery, 'The test delivery, queued') },
        errorCodes: ['not_found', 'invalid_state'],
      },
    },
    async (request, reply) =>
      reply.code(202).send({
        data: await service.sendTestEvent(deps, authOf(request).orgId, request.params.id),
      }),
  );

  app.post(
    '/api/v1/webhooks/:id/rotate-secret',
    {
      config: { scope: 'webhooks.update' },
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        example: webhookExamples.rotateWebhookSecret,
        summary: 'Replace the signing secret; the new one is returned only this once',
        description:
          'Takes effect at once: every attempt from now on, retries included, is signed with the new secret.',
        params: IdParams,
        response: {
          200: Data(WebhookWithSecret, 'The webhook with its new secret (shown only this once)'),
        },
        errorCodes: ['not_found'],
      },
    },
    async (request) => ({
      data: await service.rotateSecret(deps, authOf(request).orgId, request.params.id),
    }),
  );
}
