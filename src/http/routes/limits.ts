import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUTH_ERRORS, problems } from '../schemas/common.ts';
import {
  KeyId,
  KeyLimitsSchema,
  LimitsRequest,
  LimitsSchema,
  UsageQuery,
  UsageSchema,
} from '../schemas/limits.ts';
import type { Services } from '../services.ts';

const account = (req: FastifyRequest): string => {
  if (!req.principal) throw new Error('authentication hook did not run');
  return req.principal.accountId;
};
const tags = ['guardrails'];

/** Cost guardrails and usage, account-scoped: another account's key id is a 404. */
export const registerLimitRoutes = (app: FastifyInstance, services: Services): void => {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const g = services.guardrails;

  api.get(
    '/account/limits',
    {
      schema: {
        operationId: 'getAccountLimits',
        summary: "The account's cost limits and budgets (apply to every key of the account)",
        tags,
        response: { 200: LimitsSchema, ...problems(...AUTH_ERRORS) },
      },
    },
    async (req) => g.accountLimits(account(req)),
  );
  api.put(
    '/account/limits',
    {
      schema: {
        operationId: 'setAccountLimits',
        summary: "Replace the account's cost limits and budgets",
        tags,
        body: LimitsRequest,
        response: { 200: LimitsSchema, ...problems(400, 415, ...AUTH_ERRORS) },
      },
    },
    async (req) => g.setAccountLimits(account(req), req.body),
  );
  api.get(
    '/keys/:id/limits',
    {
      schema: {
        operationId: 'getKeyLimits',
        summary: "One API key's cost limits and budgets",
        tags,
        params: KeyId,
        response: { 200: KeyLimitsSchema, ...problems(404, ...AUTH_ERRORS) },
      },
    },
    async (req) => ({ key_id: req.params.id, ...(await g.keyLimits(account(req), req.params.id)) }),
  );
  api.put(
    '/keys/:id/limits',
    {
      schema: {
        operationId: 'setKeyLimits',
        summary: "Replace one API key's cost limits and budgets",
        tags,
        params: KeyId,
        body: LimitsRequest,
        response: { 200: KeyLimitsSchema, ...problems(400, 404, 415, ...AUTH_ERRORS) },
      },
    },
    async (req) => ({
      key_id: req.params.id,
      ...(await g.setKeyLimits(account(req), req.params.id, req.body)),
    }),
  );
  api.get(
    '/usage',
    {
      schema: {
        operationId: 'getUsage',
        summary: 'Spend and savings per account and API key for a UTC day or month',
        tags,
        querystring: UsageQuery,
        response: { 200: UsageSchema, ...problems(400, ...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const at = req.query.at !== undefined ? new Date(`${req.query.at}T12:00:00Z`) : undefined;
      return g.usage(account(req), req.query.period ?? 'day', at);
    },
  );
};
