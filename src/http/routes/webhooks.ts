import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../services/api-keys.ts';
import { AUTH_ERRORS, problems } from '../schemas/common.ts';
import {
  CreateEndpointRequest,
  DeliveryId,
  DeliveryListQuery,
  DeliveryListSchema,
  DeliverySchema,
  EndpointId,
  EndpointListSchema,
  EndpointSchema,
  EndpointWithSecretSchema,
  UpdateEndpointRequest,
} from '../schemas/webhooks.ts';
import type { Services } from '../services.ts';

const principalOf = (req: FastifyRequest): Principal => {
  if (!req.principal) throw new Error('authentication hook did not run');
  return req.principal;
};
const account = (req: FastifyRequest): string => principalOf(req).accountId;
const tags = ['webhooks'];

/** Webhook endpoint management, account-scoped: another account's endpoint or delivery is a 404. */
export const registerWebhookRoutes = (app: FastifyInstance, services: Services): void => {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const hooks = services.webhooks;

  api.post(
    '/webhooks/endpoints',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        summary: 'Add a webhook endpoint; the response carries its signing secret (shown only here)',
        tags,
        body: CreateEndpointRequest,
        response: { 201: EndpointWithSecretSchema, ...problems(400, 409, 415, 422, ...AUTH_ERRORS) },
      },
    },
    async (req, reply) => reply.status(201).send(await hooks.createEndpoint(account(req), req.body)),
  );

  api.get(
    '/webhooks/endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: "The account's webhook endpoints",
        tags,
        response: { 200: EndpointListSchema, ...problems(...AUTH_ERRORS) },
      },
    },
    async (req) => ({ endpoints: await hooks.listEndpoints(account(req)) }),
  );

  api.get(
    '/webhooks/endpoints/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'One webhook endpoint',
        tags,
        params: EndpointId,
        response: { 200: EndpointSchema, ...problems(404, ...AUTH_ERRORS) },
      },
    },
    async (req) => hooks.getEndpoint(account(req), req.params.id),
  );

  api.patch(
    '/webhooks/endpoints/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change the URL or description, or enable/disable the endpoint',
        tags,
        params: EndpointId,
        body: UpdateEndpointRequest,
        response: { 200: EndpointSchema, ...problems(400, 404, 415, 422, ...AUTH_ERRORS) },
      },
    },
    async (req) => hooks.updateEndpoint(account(req), req.params.id, req.body),
  );

  api.delete(
    '/webhooks/endpoints/:id',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete the endpoint with its deliveries',
        tags,
        params: EndpointId,
        response: { 204: { description: 'Deleted', type: 'null' }, ...problems(404, ...AUTH_ERRORS) },
      },
    },
    async (req, reply) => {
      await hooks.deleteEndpoint(account(req), req.params.id);
      return reply.status(204).send(null);
    },
  );

  api.post(
    '/webhooks/endpoints/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'New signing secret; the old one also signs (a second v1 signature) for 24 h',
        tags,
        params: EndpointId,
        response: { 200: EndpointWithSecretSchema, ...problems(404, ...AUTH_ERRORS) },
      },
    },
    async (req) => hooks.rotateSecret(account(req), req.params.id),
  );

  api.get(
    '/webhooks/endpoints/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'Deliveries to the endpoint, newest first, each with every attempt',
        tags,
        params: EndpointId,
        querystring: DeliveryListQuery,
        response: { 200: DeliveryListSchema, ...problems(400, 404, ...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const limit = Math.min(Math.max(Number(req.query.limit ?? 50), 1), 200);
      const offset = Number(req.query.offset ?? 0);
      const deliveries = await hooks.listDeliveries(account(req), req.params.id, { limit, offset });
      return { deliveries, limit, offset };
    },
  );

  api.post(
    '/webhooks/deliveries/:id/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhook',
        summary: 'Send the message again now (same webhook-id), with a fresh retry horizon',
        tags,
        params: DeliveryId,
        response: { 202: DeliverySchema, ...problems(404, 409, ...AUTH_ERRORS) },
      },
    },
    async (req, reply) => reply.status(202).send(await hooks.redeliver(account(req), req.params.id)),
  );

  api.post(
    '/webhooks/endpoints/:id/test',
    {
      schema: {
        operationId: 'sendTestWebhook',
        summary: 'Queue a sample query.completed event (data.test = true) to this endpoint',
        tags,
        params: EndpointId,
        response: { 202: DeliverySchema, ...problems(404, ...AUTH_ERRORS) },
      },
    },
    async (req, reply) => reply.status(202).send(await hooks.sendTest(account(req), req.params.id)),
  );
};
