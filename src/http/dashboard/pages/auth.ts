import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MIN_PASSWORD } from '../../../services/dashboard-auth.ts';
import type { DashboardDeps } from '../deps.ts';
import { html } from '../html.ts';
import { layout, sendPage } from '../layout.ts';
import { PRE_COOKIE, SESSION_COOKIE, cookieOptions, field, safeNext } from '../session.ts';

type Mode = 'signin' | 'signup';

const authPage = (o: { mode: Mode; csrf: string; next: string; email: string; error?: string }) => {
  const signin = o.mode === 'signin';
  const title = signin ? 'Sign in' : 'Sign up';
  return layout({
    title,
    body: html`<h1>${title}</h1>
      ${o.error ? html`<p class="error" role="alert" id="form-error">${o.error}</p>` : ''}
      <form
        method="post"
        action="/${o.mode}"
        class="stack"
        ${o.error ? html`aria-describedby="form-error"` : ''}
      >
        <input type="hidden" name="_csrf" value="${o.csrf}" />
        <input type="hidden" name="next" value="${o.next}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="email" required value="${o.email}" />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          required
          ${signin ? html`autocomplete="current-password"` : html`autocomplete="new-password" minlength="${MIN_PASSWORD}" aria-describedby="password-hint"`}
        />
        ${signin ? '' : html`<small id="password-hint">At least ${MIN_PASSWORD} characters.</small>`}
        <button type="submit">${title}</button>
      </form>
      <p>
        ${
          signin
            ? html`No account yet? <a href="/signup">Sign up</a>`
            : html`Already have an account? <a href="/signin">Sign in</a>`
        }
      </p>`,
  });
};

const query = (req: FastifyRequest, name: string): string | undefined => {
  const v = (req.query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
};

export const registerAuthPages = (app: FastifyInstance, deps: DashboardDeps): void => {
  const { services, signer } = deps;

  /** Always a brand-new session: a session cookie planted before sign-in (fixation) is dropped. */
  const signInAs = async (req: FastifyRequest, reply: FastifyReply, accountId: string) => {
    const old = req.cookies[SESSION_COOKIE];
    if (old !== undefined) await services.dashboardAuth.endSession(old);
    const { token, expiresAt } = await services.dashboardAuth.startSession(accountId);
    const maxAge = Math.floor((expiresAt.getTime() - Date.now()) / 1000);
    reply.setCookie(SESSION_COOKIE, token, cookieOptions(req, maxAge));
    reply.clearCookie(PRE_COOKIE, { path: '/' });
    return reply.redirect(safeNext(field(req, 'next')), 303);
  };

  app.get('/', { schema: { hide: true } }, (req, reply) =>
    reply.redirect(req.dashboardSession ? '/overview' : '/signin', 303),
  );

  for (const mode of ['signin', 'signup'] as const) {
    app.get(`/${mode}`, { schema: { hide: true } }, (req, reply) => {
      const next = safeNext(query(req, 'next'));
      if (req.dashboardSession) return reply.redirect(next, 303);
      return sendPage(reply, 200, authPage({ mode, csrf: signer.issue(req, reply), next, email: '' }));
    });
  }

  app.post('/signin', { schema: { hide: true } }, async (req, reply) => {
    const email = field(req, 'email');
    const result = await services.dashboardAuth.signIn(email, field(req, 'password'), req.ip);
    if (result.ok) return signInAs(req, reply, result.accountId);
    const again = (status: number, error: string) =>
      sendPage(
        reply,
        status,
        authPage({
          mode: 'signin',
          csrf: signer.issue(req, reply),
          next: safeNext(field(req, 'next')),
          email,
          error,
        }),
      );
    if (result.reason === 'rate-limited') {
      reply.header('Retry-After', String(result.retryAfterSeconds));
      return again(429, 'Too many failed sign-in attempts. Wait 15 minutes and try again.');
    }
    return again(401, 'The email or password is incorrect.');
  });

  app.post('/signup', { schema: { hide: true } }, async (req, reply) => {
    const email = field(req, 'email');
    const result = await services.dashboardAuth.signUp(email, field(req, 'password'), req.ip);
    if (result.ok) return signInAs(req, reply, result.accountId);
    if (result.reason === 'rate-limited') reply.header('Retry-After', String(result.retryAfterSeconds));
    const error = {
      'invalid-email': 'Enter a valid email address.',
      'weak-password': `Choose a password of at least ${MIN_PASSWORD} characters.`,
      // The same words whether the account has a password or was made by an operator without one.
      exists:
        'This email cannot be used to sign up. If you have an account, sign in; if an operator created it for you, use the one-time link they gave you.',
      'rate-limited': 'Too many sign-up attempts from your network. Try again later.',
    }[result.reason];
    const page = authPage({
      mode: 'signup',
      csrf: signer.issue(req, reply),
      next: safeNext(field(req, 'next')),
      email,
      error,
    });
    const status = { exists: 409, 'rate-limited': 429, 'invalid-email': 422, 'weak-password': 422 }[
      result.reason
    ];
    return sendPage(reply, status, page);
  });
};

/** Signing out needs the session's CSRF token like any other form (registered with the signed-in pages). */
export const registerSignOut = (app: FastifyInstance, deps: DashboardDeps): void => {
  app.post('/signout', { schema: { hide: true } }, async (req, reply) => {
    const token = req.cookies[SESSION_COOKIE];
    if (token !== undefined) await deps.services.dashboardAuth.endSession(token);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/signin', 303);
  });
};
