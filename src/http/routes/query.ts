import type { ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AUTH_ERRORS, problems } from '../schemas/common.ts';
import { QueryRequest, QueryResultSchema, QueryStreamLineSchema } from '../schemas/query.ts';
import { collectRows, DEFAULT_MAX_ROWS, NDJSON, ndjsonStream, wantsNdjson } from '../query-rows.ts';
import { problemFor } from '../problem.ts';
import type { Services } from '../services.ts';

/** Settles when the response has been written out, or the connection closed before. */
const responseSent = (res: ServerResponse): Promise<void> =>
  new Promise((resolve) => {
    if (res.writableFinished || res.destroyed) return resolve();
    res.once('finish', () => resolve());
    res.once('close', () => resolve());
  });

export const registerQueryRoute = (api: FastifyInstance, services: Services): void => {
  api.withTypeProvider<TypeBoxTypeProvider>().post(
    '/query',
    {
      schema: {
        operationId: 'submitQuery',
        summary: 'Rewrite a SQL query into a cheaper equivalent and run it on a warehouse',
        tags: ['queries'],
        body: QueryRequest,
        response: {
          200: {
            description: `The result (application/json); with Accept: ${NDJSON}, the rows streamed as NDJSON`,
            content: {
              'application/json': { schema: QueryResultSchema },
              [NDJSON]: { schema: QueryStreamLineSchema },
            },
          },
          ...problems(400, 403, 404, 415, 422, 503, 504, ...AUTH_ERRORS),
        },
      },
    },
    async (req, reply) => {
      const principal = req.principal;
      if (!principal) throw new Error('authentication hook did not run');
      // The client going away cancels the statement on the warehouse.
      const controller = new AbortController();
      const onClose = (): void => {
        if (!req.raw.complete || !req.raw.socket.writable) controller.abort();
      };
      req.raw.socket.once('close', onClose);
      // Rows on request: streamed (NDJSON) or the first max_rows in `data`; otherwise only counted.
      const stream = wantsNdjson(req) ? ndjsonStream(req, reply) : undefined;
      const kept =
        !stream && req.body.return_rows === true
          ? collectRows(req.body.max_rows ?? DEFAULT_MAX_ROWS)
          : undefined;
      try {
        const result = await services.queries
          .run({
            principal,
            sql: req.body.query,
            ...(req.body.warehouse !== undefined ? { warehouse: req.body.warehouse } : {}),
            ...(req.body.max_bytes_billed !== undefined ? { maxBytesBilled: req.body.max_bytes_billed } : {}),
            traceId: req.traceId,
            signal: controller.signal,
            ...(stream ? { rows: stream.factory } : kept ? { rows: () => kept.sink } : {}),
            // A shadow check of this query (if sampled) starts only once the response is out; the promise
            // (and its listeners on the response) is made only for a sampled query, before the answer is sent.
            shadow: { afterResponse: () => responseSent(reply.raw), warn: (d, m) => req.log.warn(d, m) },
          })
          .catch((e: unknown) => {
            if (!stream?.started()) throw e;
            stream.fail(problemFor(e, req.traceId));
            return undefined;
          });
        if (result === undefined) return reply;
        services.metrics.queries.labels(result.warehouse, 'ok', String(result.fallback)).inc();
        services.metrics.savingsUsd.labels(result.warehouse).inc(Math.max(0, result.cost.savings));
        for (const r of result.rules_applied) services.metrics.rulesApplied.labels(r).inc();
        if (stream?.started()) {
          stream.finish(result);
          return reply;
        }
        return kept ? { ...result, ...kept.fields() } : result;
      } finally {
        req.raw.socket.off('close', onClose);
      }
    },
  );
};
