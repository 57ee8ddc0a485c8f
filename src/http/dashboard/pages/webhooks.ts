import type { FastifyInstance } from 'fastify';
import { isGatewayError } from '../../../core/errors.ts';
import type { WebhookEndpoint, WebhookEndpointWithSecret } from '../../../services/webhooks.ts';
import type { DashboardDeps } from '../deps.ts';
import { html } from '../html.ts';
import type { HtmlValue } from '../html.ts';
import { formatTime, layout, sendPage } from '../layout.ts';
import type { Viewer } from '../layout.ts';
import { field, sessionOf } from '../session.ts';

export const endpointStatus = (e: WebhookEndpoint): string =>
  e.enabled
    ? e.failing_since
      ? `Enabled, failing since ${formatTime(new Date(e.failing_since))}`
      : 'Enabled'
    : `Disabled${e.disabled_reason ? ` (${e.disabled_reason})` : ''}`;

/** The signing secret, shown in this one response only (creation or rotation). */
export const secretNotice = (e: WebhookEndpointWithSecret, title: string) =>
  html`<section class="notice" aria-labelledby="secret-title">
    <h2 id="secret-title">${title}</h2>
    <p>
      Copy the signing secret now: it will not be shown again. Verify the
      <code>webhook-signature</code> header with it.
    </p>
    <div class="secret">
      <code id="new-webhook-secret" data-testid="new-webhook-secret">${e.secret}</code>
      <button type="button" class="secondary" data-copy="new-webhook-secret">Copy</button>
      <span id="new-webhook-secret-status" role="status"></span>
    </div>
  </section>`;

const endpointsPage = (o: {
  viewer: Viewer;
  endpoints: readonly WebhookEndpoint[];
  top?: HtmlValue;
  error?: string;
  url?: string;
  description?: string;
}) =>
  layout({
    title: 'Webhooks',
    viewer: o.viewer,
    active: 'webhooks',
    body: html`<h1>Webhooks</h1>
      <p>
        Each endpoint receives a signed <code>query.completed</code> event after every query run with your
        keys.
      </p>
      ${o.top}
      <h2>Add endpoint</h2>
      ${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}
      <form method="post" action="/endpoints" class="inline">
        <input type="hidden" name="_csrf" value="${o.viewer.csrfToken}" />
        <label for="ep-url"
          >Endpoint URL
          <input
            id="ep-url"
            name="url"
            type="url"
            required
            maxlength="2048"
            placeholder="https://example.com/hooks"
            value="${o.url ?? ''}"
        /></label>
        <label for="ep-description"
          >Description (optional)
          <input id="ep-description" name="description" maxlength="200" value="${o.description ?? ''}"
        /></label>
        <button type="submit">Add endpoint</button>
      </form>
      <h2>Endpoints</h2>
      ${
        o.endpoints.length === 0
          ? html`<p>No webhook endpoints yet.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Description</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                ${o.endpoints.map(
                  (e) =>
                    html`<tr>
                      <td><a href="/endpoints/${encodeURIComponent(e.id)}">${e.url}</a></td>
                      <td>${e.description}</td>
                      <td>${endpointStatus(e)}</td>
                      <td>${formatTime(new Date(e.created_at))}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }`,
  });

export const registerWebhookPages = (app: FastifyInstance, deps: DashboardDeps): void => {
  const { webhooks } = deps.services;

  app.get('/endpoints', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const deleted = (req.query as Record<string, unknown>).deleted !== undefined;
    const top = deleted ? html`<p class="notice" role="status">The endpoint was deleted.</p>` : '';
    return sendPage(
      reply,
      200,
      endpointsPage({ viewer: s, endpoints: await webhooks.listEndpoints(s.accountId), top }),
    );
  });

  app.post('/endpoints', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const url = field(req, 'url').trim();
    const description = field(req, 'description').trim().slice(0, 200);
    try {
      const created = await webhooks.createEndpoint(s.accountId, { url, description });
      const top = secretNotice(created, `Endpoint added: ${created.url}`);
      return sendPage(
        reply,
        201,
        endpointsPage({ viewer: s, endpoints: await webhooks.listEndpoints(s.accountId), top }),
      );
    } catch (e) {
      // A refused URL (SSRF guard, bad scheme) or the endpoint limit: the service's message says which.
      if (!isGatewayError(e) || (e.code !== 'webhook-url-refused' && e.code !== 'conflict')) throw e;
      const page = endpointsPage({
        viewer: s,
        endpoints: await webhooks.listEndpoints(s.accountId),
        error: e.detail,
        url,
        description,
      });
      return sendPage(reply, 422, page);
    }
  });
};
