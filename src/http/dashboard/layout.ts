import type { FastifyReply } from 'fastify';
import { html } from './html.ts';
import type { HtmlValue, SafeHtml } from './html.ts';

/** What the signed-in navigation needs: who is signed in and the token for the sign-out form. */
export type Viewer = { email: string; csrfToken: string };

export type NavItem = 'overview' | 'queries' | 'keys' | 'budgets' | 'webhooks';
const NAV: ReadonlyArray<readonly [NavItem, string, string]> = [
  ['overview', '/overview', 'Overview'],
  ['queries', '/queries', 'Queries'],
  ['keys', '/keys', 'API keys'],
  ['budgets', '/budgets', 'Budgets'],
  ['webhooks', '/endpoints', 'Webhooks'],
];

/** Scripts only from this origin (one served file), styles only from the served stylesheet. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const setSecurityHeaders = (reply: FastifyReply): void => {
  reply.header('Content-Security-Policy', CSP);
  reply.header('X-Frame-Options', 'DENY');
  reply.header('X-Content-Type-Options', 'nosniff');
  // A page that carries a secret in its URL (a one-time link) sets a stricter policy first.
  if (!reply.hasHeader('Referrer-Policy')) reply.header('Referrer-Policy', 'same-origin');
  reply.header('Cross-Origin-Opener-Policy', 'same-origin');
};

export const layout = (opts: {
  title: string;
  viewer?: Viewer | undefined;
  active?: NavItem;
  body: HtmlValue;
}): SafeHtml => {
  const { viewer } = opts;
  const nav = viewer
    ? html`<nav aria-label="Main">
        <ul>
          ${NAV.map(
            ([id, href, label]) =>
              html`<li>
                <a href="${href}" ${id === opts.active ? html`aria-current="page"` : ''}>${label}</a>
              </li>`,
          )}
        </ul>
        <form method="post" action="/signout" class="signout">
          <span class="who">${viewer.email}</span>
          <input type="hidden" name="_csrf" value="${viewer.csrfToken}" />
          <button type="submit">Sign out</button>
        </form>
      </nav>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${opts.title} · sqlgate</title>
        <link rel="stylesheet" href="/assets/dashboard.css" />
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <script src="/assets/dashboard.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <a class="brand" href="/">sqlgate</a>
          ${nav}
        </header>
        <main id="main" tabindex="-1">${opts.body}</main>
      </body>
    </html>`;
};

export const sendPage = (reply: FastifyReply, status: number, page: SafeHtml): FastifyReply => {
  setSecurityHeaders(reply);
  // Pages show account data (and once, a new key): never keep them in shared or back-button caches.
  reply.header('Cache-Control', 'no-store');
  return reply.status(status).type('text/html; charset=utf-8').send(page.value);
};

export const errorPage = (status: number, title: string, message: string, viewer?: Viewer): SafeHtml =>
  layout({
    title,
    viewer,
    body: html`<h1>${title}</h1>
      <p>${message}</p>
      <p><a href="/">Go to the dashboard</a></p>`,
  });

export const sendNotFoundPage = (reply: FastifyReply, viewer?: Viewer): FastifyReply =>
  sendPage(
    reply,
    404,
    errorPage(404, 'Page not found', 'There is nothing here, or it is not yours to see.', viewer),
  );

export const formatUsd = (v: number | null): string =>
  v === null
    ? '—'
    : `$${v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: v < 1 ? 6 : 2 })}`;

export const formatTime = (d: Date | null): string =>
  d === null ? '—' : d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
