import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AUTH_ERRORS, problems } from '../schemas/common.ts';
import { CostQuery, CostReportSchema } from '../schemas/query.ts';
import type { Services } from '../services.ts';

export const registerCostRoute = (api: FastifyInstance, services: Services): void => {
  api.withTypeProvider<TypeBoxTypeProvider>().get(
    '/cost',
    {
      schema: {
        operationId: 'estimateCost',
        summary: 'Estimate the USD cost of a query before and after rewriting, without running it',
        tags: ['queries'],
        querystring: CostQuery,
        response: { 200: CostReportSchema, ...problems(400, 403, 422, 503, ...AUTH_ERRORS) },
      },
    },
    async (req) => {
      // The client going away stops the query's preparation in the SQL worker pool.
      const controller = new AbortController();
      const onClose = (): void => {
        if (!req.raw.socket.writable) controller.abort();
      };
      req.raw.socket.once('close', onClose);
      try {
        return await services.queries.cost({
          sql: req.query.query,
          ...(req.query.warehouse !== undefined ? { warehouse: req.query.warehouse } : {}),
          ...(req.principal ? { principal: req.principal } : {}),
          signal: controller.signal,
        });
      } finally {
        req.raw.socket.off('close', onClose);
      }
    },
  );
};
