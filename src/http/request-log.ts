import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Probes polled by orchestrators and scrapers: logged only at `trace`, so they never bury anything. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

const pathOf = (req: FastifyRequest): string => req.routeOptions.url ?? req.url.split('?')[0] ?? '';

/**
 * One log line per request, when it completes, at `debug` (probes at `trace`), instead of Fastify's two per
 * request at `info`: the default level shows the start banner, warnings and errors. A failed request is
 * still logged at `error` where the error handler sees it.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {
    // Logged once, when complete.
  }

  override requestCompleted(error: Error | null, req: FastifyRequest, reply: FastifyReply): void {
    const level = PROBES.has(pathOf(req)) ? 'trace' : 'debug';
    reply.log[error ? 'error' : level](
      {
        req,
        res: { statusCode: reply.statusCode },
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
        ...(error ? { err: { type: error.name, message: error.message } } : {}),
      },
      'request completed',
    );
  }

  override routeNotFound(req: FastifyRequest): void {
    req.log.debug({ req }, 'route not found');
  }
}
