import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../core/errors.ts';
import type { Services } from '../services.ts';
import { AUTH_ERRORS, problems } from '../schemas/common.ts';
import { VerifyRequest, VerifyResultSchema } from '../schemas/verify.ts';
import type { VerifyResult } from '../../core/verify/types.ts';

/**
 * POST /verify reads the body as it streams in: the comparison scans the raw bytes and never builds the
 * request's objects, so the usual JSON parser is replaced for this route only. The schema documents the
 * body; the scanner validates it (422 naming the side and index).
 */
export const registerVerifyRoute = async (
  api: FastifyInstance,
  services: Services,
  maxBodyBytes: number,
): Promise<void> => {
  await api.register((scope, _opts, done) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', (req, payload, next) => {
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > maxBodyBytes) {
        next(
          new GatewayError('payload-too-large', `The request body is larger than ${maxBodyBytes} bytes.`, {
            limit: maxBodyBytes,
          }),
          undefined,
        );
        return;
      }
      next(null, payload);
    });
    scope.post(
      '/verify',
      {
        schema: {
          operationId: 'verifyResults',
          summary:
            'Compare two result sets for semantic equality (multiset, exact decimal numbers, null ≠ absent)',
          tags: ['verify'],
          body: VerifyRequest,
          response: { 200: VerifyResultSchema, ...problems(400, 413, 415, 422, ...AUTH_ERRORS) },
        },
        validatorCompiler: () => () => true,
      },
      async (req, reply) => {
        const t0 = performance.now();
        const declared = Number(req.headers['content-length']);
        // Leaving a for-await early destroys a Readable, and with it the socket: a body rejected mid-stream
        // (too large, malformed) would get no response at all. Keep the socket, answer with the problem,
        // and close the connection after it rather than read the rest of a body nobody needs.
        const body = (req.body as Readable).iterator({ destroyOnReturn: false });
        let result: VerifyResult;
        try {
          // The request's chunks are read by nothing else: each one's memory is freed once it is copied,
          // rather than piling up as external memory that forces a full collection every ~64 MiB received.
          result = await services.verify.verifyBody(body, {
            expectedBytes: Number.isSafeInteger(declared) && declared > 0 ? declared : undefined,
            releaseChunks: true,
          });
        } catch (e) {
          if (!(req.body as Readable).readableEnded) reply.header('connection', 'close');
          throw e;
        }
        const t1 = performance.now();
        // Big numbers in differences are JSON.rawJSON values: JSON.stringify writes them exactly.
        const json = JSON.stringify(result);
        // Server-side durations (ms) let a benchmark separate the server's work from the client's sending
        // and the network; `verify` includes reading the body, which streams in while it is scanned.
        const timing = `verify;dur=${(t1 - t0).toFixed(1)}, json;dur=${(performance.now() - t1).toFixed(1)}`;
        return reply
          .header('server-timing', `${timing}, total;dur=${reply.elapsedTime.toFixed(1)}`)
          .type('application/json; charset=utf-8')
          .send(json);
      },
    );
    done();
  });
};
