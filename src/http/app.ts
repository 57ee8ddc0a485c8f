import fastifySwagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { GatewayError, isGatewayError, RETRY_AFTER } from '../core/errors.ts';
import type { ErrorCode } from '../core/errors.ts';
import { createAuth } from './plugins/auth.ts';
import { createMemoryRateLimiter } from '../services/rate-limiter.ts';
import { problemOf } from './problem.ts';
import { ProblemSchema } from './schemas/common.ts';
import { openApiDocument } from './openapi.ts';
import type { Services } from './services.ts';
import type { Principal } from '../services/api-keys.ts';
import { unknownWarehouse } from '../services/run-query.ts';
import { traceIdFrom } from './trace.ts';
import { registerApiRoutes } from './routes/index.ts';
import { registerDashboard } from './dashboard/plugin.ts';
import { sendNotFoundPage } from './dashboard/layout.ts';
import { badPathParam, headerBytes } from './edge-guards.ts';
import { requestSerializer } from './log-redaction.ts';
import { parseQueryString } from './query-string.ts';
import { lowerCaseWarehouse, namesWarehouse, validationDetail } from './request-wording.ts';
import { RequestLogController, lazyChildLogger } from './request-log.ts';
import type { DestinationStream } from 'pino';
import type { DurationSeries } from './metrics.ts';

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyRequest {
    traceId: string;
    principal?: Principal;
    /** The request's ticket in the count of fresh work (jobs/foreground.ts), when the gateway counts them. */
    foregroundTicket: number;
  }
}

/** Fastify's own error codes, mapped once to ours. */
const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload-too-large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid-request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed-json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed-json',
  FST_ERR_VALIDATION: 'invalid-request',
};

/** A browser asking for a page gets the dashboard's HTML 404; API clients get a problem. */
const notFound = (req: FastifyRequest, reply: FastifyReply): FastifyReply => {
  if (req.method === 'GET' && (req.headers.accept ?? '').includes('text/html'))
    return sendNotFoundPage(reply);
  const path = req.url.split('?')[0] ?? '';
  const problem = problemOf(
    'not-found',
    `No route ${req.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}.`,
    req.traceId || String(req.id),
  );
  return reply.status(problem.status).type('application/problem+json').send(problem);
};

/**
 * The warehouse name a request's schema refused (its `enum` of registered names), if that is what failed:
 * the contract answers an unknown warehouse with 422 listing the allowed values, not 400.
 */
const refusedWarehouse = (fe: FastifyError, req: FastifyRequest): string | undefined => {
  if (fe.code !== 'FST_ERR_VALIDATION') return undefined;
  if (!fe.validation?.some((v) => v.keyword === 'enum' && v.instancePath === '/warehouse')) return undefined;
  const source: unknown = fe.validationContext === 'querystring' ? req.query : req.body;
  const value =
    typeof source === 'object' && source !== null ? (source as { warehouse?: unknown }).warehouse : undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
};

/** Builds the app without listening (tests drive it through `inject`). */
export const buildApp = async (
  config: Config,
  services: Services,
  opts: { logger?: boolean; logStream?: DestinationStream } = {},
): Promise<App> => {
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            // Logged URLs lose their credentials (query parameters named like one, anything shaped like a key).
            serializers: { req: requestSerializer },
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
              censor: '[redacted]',
            },
          },
    // One line per request at debug (request-log.ts), not Fastify's two at info.
    logController: new RequestLogController(),
    // A request's logger is made when it first writes a line (at the default level, never).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: config.maxBodyBytes,
    // GET /cost carries the query in the URL: Node's bound (request line + header fields) allows a URL as long
    // as the query limit needs, percent-encoded; the header fields alone are bounded in onRequest (edge-guards.ts).
    http: {
      maxHeaderSize: Math.min(3 * config.maxQueryBytes + 8192 + config.maxHeaderBytes, 64 * 1024 * 1024),
    },
    return503OnClosing: true,
    // Fastify's default parser's results, decoded by the engine (GET /cost's SQL text is in the query string).
    routerOptions: { querystringParser: parseQueryString },
    // On close: idle keep-alive connections are closed at once, in-flight requests finish.
    forceCloseConnections: 'idle',
    genReqId: (req) => traceIdFrom(req.headers.traceparent),
    requestIdHeader: false,
    // Behind a reverse proxy: X-Forwarded-For/-Proto give the client IP and scheme (secure cookies).
    trustProxy: config.trustProxy,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // A path that is not valid percent-encoded UTF-8, or with a parameter longer than any id, names nothing here.
    frameworkErrors: (error, req, reply) => {
      unrouted(req, reply);
      if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        void notFound(req, reply);
        return;
      }
      const problem = problemOf('invalid-request', error.message, String(req.id));
      void (reply as FastifyReply).status(400).type('application/problem+json').send(problem);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('traceId', '');
  app.decorateRequest('foregroundTicket', -1);
  const foreground = services.foreground;
  let closing = false;
  app.addHook('onRequest', (req, reply, done) => {
    req.traceId = String(req.id);
    const size = headerBytes(req);
    if (size > config.maxHeaderBytes) {
      const problem = problemOf(
        'headers-too-large',
        `The request's header fields take ${size} bytes; the limit is ${config.maxHeaderBytes} (the request line is not counted).`,
        req.traceId,
        { limit: config.maxHeaderBytes },
      );
      void reply
        .status(problem.status)
        .type('application/problem+json')
        .header('connection', 'close')
        .send(problem);
      return;
    }
    if (badPathParam(req) !== undefined) {
      void notFound(req, reply);
      return;
    }
    // Background work (webhook delivery) gives way while the request is young; it leaves when answered.
    if (foreground) req.foregroundTicket = foreground.start();
    // During shutdown every answer closes its connection, so a keep-alive client cannot hold close() open.
    if (closing) reply.header('connection', 'close');
    done();
  });
  // Request durations, by (method, route, status): each route observes its own (its path bound in the hook:
  // no route options read per request), with one series per method and status, found once. A request also
  // stops counting as fresh here (foreground.ts; one that never finishes stops when it is no longer fresh).
  const observer = (route: string) => {
    const byMethod = new Map<string, Map<number, DurationSeries>>();
    return (req: FastifyRequest, reply: FastifyReply): void => {
      foreground?.end(req.foregroundTicket);
      let byStatus = byMethod.get(req.method);
      if (byStatus === undefined) byMethod.set(req.method, (byStatus = new Map<number, DurationSeries>()));
      let series = byStatus.get(reply.statusCode);
      if (series === undefined) {
        series = services.metrics.httpDuration.series(req.method, route, String(reply.statusCode));
        byStatus.set(reply.statusCode, series);
      }
      series.observe(reply.elapsedTime / 1000);
    };
  };
  app.addHook('onRoute', (route) => {
    const observe = observer(route.url ?? 'unknown');
    const hook = (req: FastifyRequest, reply: FastifyReply, done: () => void): void => {
      observe(req, reply);
      done();
    };
    const own = route.onResponse;
    route.onResponse = own === undefined ? [hook] : [...(Array.isArray(own) ? own : [own]), hook];
  });
  // Requests no route took (404s, malformed URLs) are observed as route 'unknown' once answered.
  const observeUnrouted = observer('unknown');
  const unrouted = (req: FastifyRequest, reply: FastifyReply): void =>
    void reply.raw.once('finish', () => observeUnrouted(req, reply));

  // Shutdown: requests that arrive meanwhile are answered with `Connection: close` (above). Those in flight
  // when it began had their headers made without it: their connections are closed once idle (checked every
  // 20 ms until the server has closed), without a hook on every response.
  app.addHook('preClose', (done) => {
    closing = true;
    const server = app.server;
    const idle = setInterval(() => server.closeIdleConnections(), 20);
    idle.unref();
    server.once('close', () => clearInterval(idle));
    done();
  });

  app.addSchema(ProblemSchema);
  await app.register(fastifySwagger, {
    openapi: openApiDocument(config.publicUrl),
    hideUntagged: false,
    // Shared schemas keep their $id as their name in components.schemas (`Problem`, not `def-0`).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });

  const sendProblem = (
    reply: FastifyReply,
    req: FastifyRequest,
    code: ErrorCode,
    detail: string,
    context: Record<string, unknown> = {},
  ) => {
    const problem = problemOf(code, detail, req.traceId, context);
    return reply.status(problem.status).type('application/problem+json').send(problem);
  };

  app.setErrorHandler((error: FastifyError | GatewayError | Error, req, reply) => {
    if (isGatewayError(error)) {
      if (error.code === 'unauthorized') reply.header('WWW-Authenticate', 'Bearer realm="sqlgate"');
      if (error.code === 'invalid-token') {
        reply.header(
          'WWW-Authenticate',
          `Bearer realm="sqlgate", error="invalid_token", error_description="${error.detail}"`,
        );
      }
      const retryAfter = error.context[RETRY_AFTER];
      if (typeof retryAfter === 'number')
        reply.header('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
      return sendProblem(reply, req, error.code, error.detail, { ...error.context });
    }
    const fe = error as FastifyError;
    // A path parameter that is not an id of ours: nothing is there.
    if (fe.code === 'FST_ERR_VALIDATION' && fe.validationContext === 'params') return notFound(req, reply);
    const named = refusedWarehouse(fe, req);
    if (named !== undefined) {
      const e = unknownWarehouse(named);
      return sendProblem(reply, req, e.code, e.detail, { ...e.context });
    }
    const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
    if (mapped === 'invalid-request' && fe.code === 'FST_ERR_VALIDATION')
      return sendProblem(reply, req, mapped, validationDetail(fe));
    if (mapped) return sendProblem(reply, req, mapped, fe.message);
    if (error instanceof SyntaxError || fe.statusCode === 400)
      return sendProblem(reply, req, 'malformed-json', 'The request body is not valid JSON.');
    if (typeof fe.statusCode === 'number' && fe.statusCode === 413)
      return sendProblem(reply, req, 'payload-too-large', fe.message);
    // No stack in logs (contract): the error's type and message identify it with the trace id.
    req.log.error({ err: { type: error.name, message: error.message } }, 'unexpected error');
    return sendProblem(
      reply,
      req,
      'internal',
      'An unexpected error occurred; the trace id identifies it in the logs.',
    );
  });
  app.setNotFoundHandler((req, reply) => {
    unrouted(req, reply);
    return notFound(req, reply);
  });

  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, boolean> = {};
    checks.store = await services.db.query('SELECT 1').then(
      () => true,
      () => false,
    );
    for (const w of services.warehouses.all()) checks[w.name] = await w.adapter.ping().catch(() => false);
    let ready = Object.values(checks).every(Boolean);
    // Shared dependencies of a replica (Redis, the key-change feed): each reported by name.
    const replica = services.replica;
    for (const [name, { check, required }] of Object.entries(replica?.checks ?? {})) {
      checks[name] = await check().catch(() => false);
      if (required && !checks[name]) ready = false;
    }
    return reply
      .status(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not-ready', checks, ...(replica ? { replica: replica.name } : {}) });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    const all = services.replica?.clusterMetrics;
    if (all) {
      const m = await all().catch(() => undefined);
      if (m) return reply.type(m.contentType).send(m.text);
    }
    return reply.type(services.metrics.registry.contentType).send(await services.metrics.registry.metrics());
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());

  const auth = createAuth(
    services.keys,
    services.rateLimiter ?? createMemoryRateLimiter(config.rateLimitPerMinute, 60_000),
  );
  await app.register(async (api) => {
    // The API speaks JSON only: a text body is 415, not a string that fails validation.
    api.removeContentTypeParser('text/plain');
    api.addHook('onRequest', auth);
    // Only routes that take a warehouse name lower it (a hook on every route would cost the others a step).
    api.addHook('onRoute', (route) => {
      if (!namesWarehouse(route.schema?.body) && !namesWarehouse(route.schema?.querystring)) return;
      const own = route.preValidation;
      route.preValidation =
        own === undefined
          ? [lowerCaseWarehouse]
          : [...(Array.isArray(own) ? own : [own]), lowerCaseWarehouse];
    });
    await registerApiRoutes(api, services, config);
  });
  await registerDashboard(app, services, config);
  return app;
};

export { GatewayError };
