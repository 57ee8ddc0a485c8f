import type { FastifyInstance } from 'fastify';
import type { ApiKeyRecord } from '../../../store/api-keys.ts';
import type { DashboardDeps } from '../deps.ts';
import { html } from '../html.ts';
import type { HtmlValue } from '../html.ts';
import { formatTime, layout, sendNotFoundPage, sendPage } from '../layout.ts';
import type { Viewer } from '../layout.ts';
import { field, sessionOf } from '../session.ts';
import { createKeyFlash } from '../key-flash.ts';
import type { NewKey } from '../key-flash.ts';

const MAX_NAME = 100;

const statusOf = (k: ApiKeyRecord, now: Date): string =>
  k.revokedAt ? 'Revoked' : k.expiresAt && k.expiresAt <= now ? 'Expired' : 'Active';

const keysTable = (keys: readonly ApiKeyRecord[]) => {
  const now = new Date();
  if (keys.length === 0) return html`<p>No API keys yet. Create one to call the API.</p>`;
  return html`<table>
    <caption class="visually-hidden">
      Your API keys
    </caption>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Prefix</th>
        <th scope="col">Created</th>
        <th scope="col">Last used</th>
        <th scope="col">Expires</th>
        <th scope="col">Status</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${keys.map(
        (k) =>
          html`<tr data-key-id="${k.id}">
            <td>${k.name}</td>
            <td><code>${k.prefix}</code></td>
            <td>${formatTime(k.createdAt)}</td>
            <td>${k.lastUsedAt ? formatTime(k.lastUsedAt) : 'Never'}</td>
            <td>${k.expiresAt ? formatTime(k.expiresAt) : 'Never'}</td>
            <td>${statusOf(k, now)}</td>
            <td>
              ${statusOf(k, now) === 'Active' ? html`<a href="/keys/${encodeURIComponent(k.id)}/revoke">Revoke<span class="visually-hidden"> ${k.name}</span></a>` : ''}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
};

const keysPage = (o: {
  viewer: Viewer;
  keys: readonly ApiKeyRecord[];
  top?: HtmlValue;
  error?: string;
  name?: string;
}) =>
  layout({
    title: 'API keys',
    viewer: o.viewer,
    active: 'keys',
    body: html`<h1>API keys</h1>
      ${o.top}
      <h2>Create API key</h2>
      ${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}
      <form method="post" action="/keys" class="inline">
        <input type="hidden" name="_csrf" value="${o.viewer.csrfToken}" />
        <label for="key-name"
          >Name <input id="key-name" name="name" required maxlength="${MAX_NAME}" value="${o.name ?? ''}"
        /></label>
        <label for="key-expiry"
          >Expires on (optional) <input id="key-expiry" name="expires" type="date"
        /></label>
        <button type="submit">Create API key</button>
      </form>
      <h2>Your keys</h2>
      ${keysTable(o.keys)}`,
  });

/** A date from `<input type="date">` means the end of that day (UTC); it must be in the future. */
const parseExpiry = (v: string): Date | null | 'invalid' => {
  if (v === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'invalid';
  const d = new Date(`${v}T23:59:59.999Z`);
  return Number.isNaN(d.getTime()) || d.getTime() <= Date.now() ? 'invalid' : d;
};

/** The new key, shown once (GET /keys right after the POST that created it). */
const newKeyPanel = (created: NewKey) =>
  html`<section class="notice" aria-labelledby="new-key-title">
    <h2 id="new-key-title">New API key “${created.name}”</h2>
    <p>Copy it now: it will not be shown again.</p>
    <div class="secret">
      <code id="new-api-key" data-testid="new-api-key">${created.key}</code>
      <button type="button" class="secondary" data-copy="new-api-key">Copy</button>
      <span id="new-api-key-status" role="status"></span>
    </div>
  </section>`;

export const registerKeyPages = (app: FastifyInstance, deps: DashboardDeps): void => {
  const { keys } = deps.services;
  const flash = createKeyFlash(deps.config.dashboardSecret);
  const findKey = async (accountId: string, id: string) =>
    (await keys.list(accountId)).find((k) => k.id === id);

  app.get('/keys', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const revoked = (req.query as Record<string, unknown>).revoked !== undefined;
    const created = flash.take(req, reply, s.csrfToken);
    const top = created
      ? newKeyPanel(created)
      : revoked
        ? html`<p class="notice" role="status">The key was revoked. The API refuses it from now on.</p>`
        : '';
    return sendPage(reply, 200, keysPage({ viewer: s, keys: await keys.list(s.accountId), top }));
  });

  app.post('/keys', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const name = field(req, 'name').trim();
    const expiry = parseExpiry(field(req, 'expires'));
    const error =
      name === '' || name.length > MAX_NAME
        ? `Give the key a name of 1 to ${MAX_NAME} characters.`
        : expiry === 'invalid'
          ? 'The expiry date must be a future date.'
          : undefined;
    if (error !== undefined || expiry === 'invalid') {
      return sendPage(reply, 422, keysPage({ viewer: s, keys: await keys.list(s.accountId), error, name }));
    }
    const created = await keys.createForAccount(s.accountId, name, expiry);
    // POST/redirect/GET: the key rides to GET /keys in an encrypted one-time cookie and is shown there once;
    // reloading that page never posts again.
    flash.put(req, reply, s.csrfToken, { key: created.key, name: created.record.name });
    return reply.redirect('/keys', 303);
  });

  app.get<{ Params: { id: string } }>('/keys/:id/revoke', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const key = await findKey(s.accountId, req.params.id);
    if (!key || key.revokedAt) return sendNotFoundPage(reply, s);
    const page = layout({
      title: 'Revoke API key',
      viewer: s,
      active: 'keys',
      body: html`<h1>Revoke API key “${key.name}”?</h1>
        <p>
          Requests with the key <code>${key.prefix}…</code> are refused from the moment you revoke it. This
          cannot be undone.
        </p>
        <form method="post" action="/keys/${encodeURIComponent(key.id)}/revoke" class="inline">
          <input type="hidden" name="_csrf" value="${s.csrfToken}" />
          <button type="submit" class="danger">Revoke key</button>
          <a href="/keys">Cancel</a>
        </form>`,
    });
    return sendPage(reply, 200, page);
  });

  app.post<{ Params: { id: string } }>('/keys/:id/revoke', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    if (!(await keys.revoke(req.params.id, s.accountId))) return sendNotFoundPage(reply, s);
    return reply.redirect('/keys?revoked=1', 303);
  });
};
