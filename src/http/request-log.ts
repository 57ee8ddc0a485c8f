import { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyChildLoggerFactory } from 'fastify/types/logger.js';

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
    // Nothing is built for a line the level leaves out (the default, info, leaves out every request's): a
    // request's line is at debug or below, and its route (`routeOptions` is an object made per read) is only
    // looked up when such a line is written.
    if (error === null && !enabled(reply.log, 'debug')) return;
    const level = error ? 'error' : PROBES.has(pathOf(req)) ? 'trace' : 'debug';
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

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type ChildOptions = { level?: string } & Record<string, unknown>;

/**
 * A request's logger (`req.log`, `reply.log`) that makes its pino child, with the request id bound, only when
 * it writes a line at an enabled level, or is asked for its bindings or a child of its own. Fastify makes one
 * for every request, and pino's `child` is most of a microsecond; at the default level no request writes one.
 */
class LazyRequestLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  #real: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #made(): FastifyBaseLogger {
    return (this.#real ??= this.#parent.child(this.#bindings));
  }

  #write(level: Level, args: unknown[]): void {
    const log = this.#real ?? this.#parent;
    if (!enabled(log, level)) return;
    const real = this.#made();
    Reflect.apply(real[level], real, args);
  }

  get level(): string {
    return (this.#real ?? this.#parent).level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return enabled(this.#real ?? this.#parent, level);
  }

  bindings(): Bindings {
    return (this.#made() as unknown as { bindings(): Bindings }).bindings();
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#write('error', args);
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }

  info(...args: unknown[]): void {
    this.#write('info', args);
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }

  silent(): void {
    // Writes nothing, as pino's.
  }
}

/** Fastify's `childLoggerFactory`: a lazy child, unless the route sets options of its own (a level). */
export const lazyChildLogger: FastifyChildLoggerFactory = (logger, bindings, opts) =>
  Object.keys(opts).length > 0 ? logger.child(bindings, opts) : new LazyRequestLogger(logger, bindings);
