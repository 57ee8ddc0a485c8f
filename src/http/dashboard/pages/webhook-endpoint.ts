import type { FastifyInstance } from 'fastify';
import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../../services/webhooks.ts';
import type { DashboardDeps } from '../deps.ts';
import { html } from '../html.ts';
import type { HtmlValue } from '../html.ts';
import { formatTime, layout, sendPage } from '../layout.ts';
import type { Viewer } from '../layout.ts';
import { field, notFoundError, sessionOf } from '../session.ts';
import { endpointStatus, secretNotice } from './webhooks.ts';

type Params = { Params: { id: string } };
const FLASH: Readonly<Record<string, string>> = {
  sent: 'A test event was queued; it appears below once attempted.',
  redelivered: 'The delivery was queued again.',
  enabled: 'The endpoint is enabled.',
  disabled: 'The endpoint is disabled: no events are sent to it.',
};

const postButton = (
  viewer: Viewer,
  action: string,
  label: string,
  extra: Record<string, string> = {},
  cls = 'secondary',
) =>
  html`<form method="post" action="${action}">
    <input type="hidden" name="_csrf" value="${viewer.csrfToken}" />
    ${Object.entries(extra).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button type="submit" class="${cls}">${label}</button>
  </form>`;

const lastResponse = (d: WebhookDelivery) => {
  const a = d.attempts[d.attempts.length - 1];
  if (!a) return html`—`;
  return html`${a.status_code ?? a.error ?? '—'}${
    a.response_body
      ? html`<details>
          <summary>Response body</summary>
          <pre>${a.response_body}</pre>
        </details>`
      : ''
  }`;
};

const deliveriesTable = (viewer: Viewer, endpointId: string, deliveries: readonly WebhookDelivery[]) =>
  deliveries.length === 0
    ? html`<p>No deliveries yet.</p>`
    : html`<table data-testid="deliveries">
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">Attempts</th>
            <th scope="col">Last response</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${deliveries.map(
            (d) =>
              html`<tr data-delivery-status="${d.status}">
                <td>${formatTime(new Date(d.created_at))}</td>
                <td><code>${d.event_type}</code><br /><small>${d.event_id}</small></td>
                <td>
                  ${d.status}${d.next_attempt_at && d.status === 'pending' ? html`<br /><small>next ${formatTime(new Date(d.next_attempt_at))}</small>` : ''}
                </td>
                <td class="num">${d.attempt_count}</td>
                <td>${lastResponse(d)}${d.last_error ? html`<br /><small>${d.last_error}</small>` : ''}</td>
                <td>
                  ${postButton(viewer, `/endpoints/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(d.id)}/redeliver`, 'Redeliver')}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`;

const endpointPage = (
  viewer: Viewer,
  e: WebhookEndpoint,
  deliveries: readonly WebhookDelivery[],
  top: HtmlValue,
) => {
  const base = `/endpoints/${encodeURIComponent(e.id)}`;
  return layout({
    title: 'Webhook endpoint',
    viewer,
    active: 'webhooks',
    body: html`<h1>Webhook endpoint</h1>
      <p><a href="/endpoints">All endpoints</a></p>
      ${top}
      <dl class="meta">
        <dt>URL</dt>
        <dd><code>${e.url}</code></dd>
        <dt>Description</dt>
        <dd>${e.description || '—'}</dd>
        <dt>Status</dt>
        <dd data-testid="endpoint-status">${endpointStatus(e)}</dd>
        <dt>Created</dt>
        <dd>${formatTime(new Date(e.created_at))}</dd>
      </dl>
      <div class="actions">
        ${postButton(viewer, `${base}/enabled`, e.enabled ? 'Disable endpoint' : 'Enable endpoint', { enabled: e.enabled ? 'false' : 'true' })}
        ${postButton(viewer, `${base}/test`, 'Send test event')}
        ${postButton(viewer, `${base}/rotate-secret`, 'Rotate secret')}
        <a href="${base}/delete">Delete endpoint</a>
      </div>
      <h2>Deliveries</h2>
      ${deliveriesTable(viewer, e.id, deliveries)}`,
  });
};

export const registerWebhookEndpointPages = (app: FastifyInstance, deps: DashboardDeps): void => {
  const { webhooks } = deps.services;
  const show = async (viewer: Viewer & { accountId: string }, id: string, top: HtmlValue) =>
    endpointPage(
      viewer,
      await webhooks.getEndpoint(viewer.accountId, id),
      await webhooks.listDeliveries(viewer.accountId, id),
      top,
    );

  // Unknown ids and other accounts' endpoints throw the service's `not-found`: a 404 page (plugin.ts).
  app.get<Params>('/endpoints/:id', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const flash = Object.keys(req.query as Record<string, unknown>).find((k) => k in FLASH);
    const top = flash ? html`<p class="notice" role="status">${FLASH[flash]}</p>` : '';
    return sendPage(reply, 200, await show(s, req.params.id, top));
  });

  app.post<Params>('/endpoints/:id/enabled', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const enabled = field(req, 'enabled') === 'true';
    await webhooks.updateEndpoint(s.accountId, req.params.id, { enabled });
    return reply.redirect(
      `/endpoints/${encodeURIComponent(req.params.id)}?${enabled ? 'enabled' : 'disabled'}=1`,
      303,
    );
  });

  app.post<Params>('/endpoints/:id/test', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    await webhooks.sendTest(s.accountId, req.params.id);
    return reply.redirect(`/endpoints/${encodeURIComponent(req.params.id)}?sent=1`, 303);
  });

  app.post<{ Params: { id: string; delivery: string } }>(
    '/endpoints/:id/deliveries/:delivery/redeliver',
    { schema: { hide: true } },
    async (req, reply) => {
      const s = sessionOf(req);
      // The delivery must belong to this endpoint too, or the redirect would show another endpoint's page.
      const d = await webhooks.getDelivery(s.accountId, req.params.delivery);
      await webhooks.getEndpoint(s.accountId, req.params.id);
      if (d.endpoint_id !== req.params.id) throw notFoundError();
      await webhooks.redeliver(s.accountId, d.id);
      return reply.redirect(`/endpoints/${encodeURIComponent(req.params.id)}?redelivered=1`, 303);
    },
  );

  app.post<Params>('/endpoints/:id/rotate-secret', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const rotated: WebhookEndpointWithSecret = await webhooks.rotateSecret(s.accountId, req.params.id);
    const top = secretNotice(rotated, 'New signing secret (the previous one keeps signing for 24 hours)');
    return sendPage(reply, 200, await show(s, rotated.id, top));
  });

  app.get<Params>('/endpoints/:id/delete', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const e = await webhooks.getEndpoint(s.accountId, req.params.id);
    const page = layout({
      title: 'Delete webhook endpoint',
      viewer: s,
      active: 'webhooks',
      body: html`<h1>Delete the endpoint <code>${e.url}</code>?</h1>
        <p>No more events are sent to it, and its delivery log is deleted. This cannot be undone.</p>
        <div class="actions">
          ${postButton(s, `/endpoints/${encodeURIComponent(e.id)}/delete`, 'Delete endpoint', {}, 'danger')}
          <a href="/endpoints/${encodeURIComponent(e.id)}">Cancel</a>
        </div>`,
    });
    return sendPage(reply, 200, page);
  });

  app.post<Params>('/endpoints/:id/delete', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    await webhooks.deleteEndpoint(s.accountId, req.params.id);
    return reply.redirect('/endpoints?deleted=1', 303);
  });
};
