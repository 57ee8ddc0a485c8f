import { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

/** Whether a line at `level` would be written (pino says; a logger that cannot say is asked to write it). */
const enabled = (log: FastifyBaseLogger, level: string): boolean => {
  const ask = (log as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled;
  return ask === undefined || ask.call(log, level);
};

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
    const level = error ? 'error' : PROBES.has(pathOf(req)) ? 'trace' : 'debug';
    // Nothing is built for a line the level leaves out (the default, info, leaves out every request's).
    if (!enabled(reply.log, level)) return;
    reply.log[level](
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
    if (enabled(req.log, 'debug')) req.log.debug({ req }, 'route not found');
  }
}
