import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { isGatewayError } from '../../core/errors.ts';
import type { GatewayError } from '../../core/errors.ts';
import type { Services } from '../services.ts';
import { problemOf } from '../problem.ts';
import { registerAssets } from './assets.ts';
import type { DashboardDeps } from './deps.ts';
import { errorPage, sendPage } from './layout.ts';
import { registerAccountLinkPages } from './pages/account-links.ts';
import { registerAuthPages, registerSignOut } from './pages/auth.ts';
import { registerBudgetPages } from './pages/budgets.ts';
import { registerKeyPages } from './pages/keys.ts';
import { registerOverviewPage } from './pages/overview.ts';
import { registerQueryPages } from './pages/queries.ts';
import { registerWebhookEndpointPages } from './pages/webhook-endpoint.ts';
import { registerWebhookPages } from './pages/webhooks.ts';
import { PageError, SESSION_COOKIE, createFormSigner, csrfRefused, field, sameToken } from './session.ts';

const FORM_BODY_LIMIT = 64 * 1024;

const viewerOf = (req: FastifyRequest) => req.dashboardSession;

/**
 * The web dashboard, registered beside the API (not inside it), so the bearer hook does not apply:
 * pages authenticate with a server-side session cookie, and every form carries a CSRF token.
 */
export const registerDashboard = async (app: FastifyInstance, services: Services, config: Config) => {
  await app.register(async (dash) => {
    await dash.register(fastifyCookie);
    await dash.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });
    const deps: DashboardDeps = { services, config, signer: createFormSigner(config.dashboardSecret) };

    dash.setErrorHandler((error: FastifyError | PageError | GatewayError, req, reply) => {
      // The services' expected failures; another account's object reads as not found, never as forbidden.
      if (isGatewayError(error)) {
        const status = problemOf(error.code, error.detail, req.traceId).status;
        const page =
          error.code === 'not-found'
            ? errorPage(
                404,
                'Page not found',
                'There is nothing here, or it is not yours to see.',
                viewerOf(req),
              )
            : errorPage(status, status >= 500 ? 'Error' : 'Not possible', error.detail, viewerOf(req));
        return sendPage(reply, status, page);
      }
      if (error instanceof PageError)
        return sendPage(
          reply,
          error.status,
          errorPage(error.status, error.title, error.message, viewerOf(req)),
        );
      const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 500;
      // Only the type and message: form bodies (passwords) and cookies never reach the log.
      if (status === 500)
        req.log.error({ err: { type: error.name, message: error.message } }, 'dashboard error');
      const message =
        status === 500 ? 'Something went wrong. Try again.' : 'The request could not be processed.';
      return sendPage(reply, status, errorPage(status, status === 500 ? 'Error' : 'Bad request', message));
    });

    const loadSession = async (req: FastifyRequest) => {
      const token = req.cookies[SESSION_COOKIE];
      if (token !== undefined && token.length <= 128) {
        const s = await services.dashboardAuth.session(token);
        if (s) req.dashboardSession = s;
      }
    };

    registerAssets(dash);

    await dash.register((pub, _opts, done) => {
      pub.addHook('preHandler', async (req) => {
        await loadSession(req);
        if (req.method === 'POST' && !deps.signer.verify(req)) throw csrfRefused();
      });
      registerAuthPages(pub, deps);
      registerAccountLinkPages(pub, deps);
      done();
    });

    await dash.register((priv, _opts, done) => {
      priv.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
        await loadSession(req);
        const s = req.dashboardSession;
        if (!s) {
          const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.url)}` : '';
          return reply.redirect(`/signin${next}`, 303);
        }
        if (req.method !== 'GET' && req.method !== 'HEAD' && !sameToken(field(req, '_csrf'), s.csrfToken))
          throw csrfRefused();
      });
      registerSignOut(priv, deps);
      registerKeyPages(priv, deps);
      registerBudgetPages(priv, deps);
      registerOverviewPage(priv, deps);
      registerQueryPages(priv, deps);
      registerWebhookPages(priv, deps);
      registerWebhookEndpointPages(priv, deps);
      done();
    });
  });
};
