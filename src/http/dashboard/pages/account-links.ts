import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MIN_PASSWORD } from '../../../services/dashboard-auth.ts';
import type { LinkPurpose } from '../../../store/account-links.ts';
import type { DashboardDeps } from '../deps.ts';
import { html } from '../html.ts';
import { errorPage, layout, sendPage } from '../layout.ts';
import { PRE_COOKIE, SESSION_COOKIE, cookieOptions, field } from '../session.ts';

/**
 * The pages behind the one-time links the CLI prints: `/claim?token=…` sets the first password of an account
 * made by the CLI, `/reset-password?token=…` sets a new one and signs out every session of the account. Opening
 * the link only shows the form (link scanners and previews do not use it up); the link is used when the form
 * is sent, and the browser that sent it is signed in. The token travels in the form body, not in a URL.
 */
const TEXT: Readonly<Record<LinkPurpose, { title: string; intro: string; button: string }>> = {
  claim: {
    title: 'Claim your account',
    intro: 'Choose the password for the account',
    button: 'Set password and sign in',
  },
  reset: {
    title: 'Reset your password',
    intro: 'Choose a new password for the account',
    button: 'Reset password and sign in',
  },
};

const PATHS: Readonly<Record<LinkPurpose, string>> = { claim: '/claim', reset: '/reset-password' };

const linkPage = (
  purpose: LinkPurpose,
  o: { csrf: string; token: string; email: string; error?: string },
) => {
  const t = TEXT[purpose];
  return layout({
    title: t.title,
    body: html`<h1>${t.title}</h1>
      ${o.error ? html`<p class="error" role="alert" id="form-error">${o.error}</p>` : ''}
      <p>${t.intro} <strong data-testid="link-email">${o.email}</strong>.</p>
      ${purpose === 'reset' ? html`<p>Every browser signed in to this account is signed out.</p>` : ''}
      <form method="post" action="${PATHS[purpose]}" class="stack">
        <input type="hidden" name="_csrf" value="${o.csrf}" />
        <input type="hidden" name="token" value="${o.token}" />
        <label for="password">New password</label>
        <input
          id="password"
          name="password"
          type="password"
          required
          autocomplete="new-password"
          minlength="${MIN_PASSWORD}"
          aria-describedby="password-hint"
        />
        <small id="password-hint">At least ${MIN_PASSWORD} characters.</small>
        <button type="submit">${t.button}</button>
      </form>`,
  });
};

const deadLink = () =>
  errorPage(
    404,
    'Link not valid',
    'This link is not valid: it may have expired or been used already. Ask the operator of this gateway for a new one.',
  );

/** Nothing on these pages may leak the token: no Referer to anywhere, not even this site. */
const noReferrer = (reply: FastifyReply): FastifyReply => reply.header('Referrer-Policy', 'no-referrer');

export const registerAccountLinkPages = (app: FastifyInstance, deps: DashboardDeps): void => {
  const { services, signer } = deps;

  const signInAs = async (req: FastifyRequest, reply: FastifyReply, accountId: string) => {
    const old = req.cookies[SESSION_COOKIE];
    if (old !== undefined) await services.dashboardAuth.endSession(old);
    const { token, expiresAt } = await services.dashboardAuth.startSession(accountId);
    reply.setCookie(
      SESSION_COOKIE,
      token,
      cookieOptions(req, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
    );
    reply.clearCookie(PRE_COOKIE, { path: '/' });
    return reply.redirect('/overview', 303);
  };

  for (const purpose of ['claim', 'reset'] as const) {
    const path = PATHS[purpose];
    app.get(path, { schema: { hide: true } }, async (req, reply) => {
      noReferrer(reply);
      const q = req.query as Record<string, unknown> | undefined;
      const token = typeof q?.token === 'string' ? q.token : '';
      const link = await services.dashboardAuth.peekLink(token, purpose);
      if (!link) return sendPage(reply, 404, deadLink());
      return sendPage(
        reply,
        200,
        linkPage(purpose, { csrf: signer.issue(req, reply), token, email: link.email }),
      );
    });

    app.post(path, { schema: { hide: true } }, async (req, reply) => {
      noReferrer(reply);
      const token = field(req, 'token');
      const result = await services.dashboardAuth.redeemLink(token, purpose, field(req, 'password'));
      if (result.ok) return signInAs(req, reply, result.accountId);
      if (result.reason === 'invalid-link') return sendPage(reply, 404, deadLink());
      const link = await services.dashboardAuth.peekLink(token, purpose);
      if (!link) return sendPage(reply, 404, deadLink());
      const page = linkPage(purpose, {
        csrf: signer.issue(req, reply),
        token,
        email: link.email,
        error: `Choose a password of at least ${MIN_PASSWORD} characters.`,
      });
      return sendPage(reply, 422, page);
    });
  }
};
