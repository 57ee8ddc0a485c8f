import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AUTH_ERRORS, problems } from '../schemas/common.ts';
import { CostQuery, CostReportSchema } from '../schemas/query.ts';
import type { Services } from '../services.ts';
import type { CostReport } from '../../services/estimate-cost.ts';

export const registerCostRoute = (api: FastifyInstance, services: Services): void => {
  /**
   * The response bytes of a report the query service answers again and again (a repeated text: the same report
   * object while its catalog is current), serialised by the route's own serializer once.
   */
  const bodies = new WeakMap<CostReport, string>();
  const send = (reply: FastifyReply, report: CostReport): FastifyReply => {
    let body = bodies.get(report);
    if (body === undefined) {
      body = reply.serialize(report) as string;
      bodies.set(report, body);
    }
    // A string with a JSON content type is sent as is (the schema's serializer is for objects); a short one
    // goes to the socket in one write with the header (a Buffer would be a second chunk of a writev).
    return reply.type('application/json; charset=utf-8').send(body);
  };
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
    (req, reply) => {
      // A text seen before, its catalog current: answered now, without a promise.
      const known = services.queries.rememberedCostNow(req.query.query, req.query.warehouse);
      if (known !== undefined) return void send(reply, known);
      return (async () => {
        // The client going away stops the query's preparation in the SQL worker pool.
        const controller = new AbortController();
        const onClose = (): void => {
          if (!req.raw.socket.writable) controller.abort();
        };
        req.raw.socket.once('close', onClose);
        try {
          const report = await services.queries.cost({
            sql: req.query.query,
            ...(req.query.warehouse !== undefined ? { warehouse: req.query.warehouse } : {}),
            ...(req.principal ? { principal: req.principal } : {}),
            signal: controller.signal,
          });
          return send(reply, report);
        } finally {
          req.raw.socket.off('close', onClose);
        }
      })();
    },
  );
};
