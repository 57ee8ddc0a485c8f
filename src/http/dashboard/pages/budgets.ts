import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LimitsInput, LimitsView, Usage, UsageEntry } from '../../../services/guardrails.ts';
import type { DashboardDeps } from '../deps.ts';
import { html } from '../html.ts';
import type { HtmlValue } from '../html.ts';
import { formatUsd, layout, sendNotFoundPage, sendPage } from '../layout.ts';
import type { Viewer } from '../layout.ts';
import { field, sessionOf } from '../session.ts';

/** At this share of a budget the page warns (the webhook `budget.threshold_reached` fires here too). */
const WARN_PCT = 80;

/**
 * One budget as a bar: a native `<meter>` (no inline style under the CSP), its figures in words, and a
 * warning from 80 %.
 */
const bar = (label: string, e: UsageEntry, id: string): HtmlValue => {
  if (e.budget_usd === null) return html`<p>${label}: ${formatUsd(e.spent_usd)} spent, no budget set.</p>`;
  const pct = e.used_pct ?? 0;
  const warn = pct >= WARN_PCT;
  return html`<div class="budget${warn ? ' warn' : ''}" data-budget="${id}">
    <label for="${id}"
      >${label}: ${formatUsd(e.spent_usd)} of ${formatUsd(e.budget_usd)} (${pct.toFixed(1)} %)</label
    >
    <meter
      id="${id}"
      min="0"
      max="100"
      low="${WARN_PCT}"
      high="99.999"
      optimum="0"
      value="${Math.min(100, pct).toFixed(2)}"
    >
      ${pct.toFixed(1)} %
    </meter>
    ${
      warn
        ? html`<p class="error" role="alert">
            ${pct >= 100 ? 'Budget exhausted: queries are refused until it resets.' : `Warning: ${pct.toFixed(0)} % of this budget is used.`}
          </p>`
        : ''
    }
  </div>`;
};

const num = (v: number | null): string => (v === null ? '' : String(v));

const limitsForm = (action: string, l: LimitsView, csrf: string, idp: string): HtmlValue =>
  html`<form method="post" action="${action}" class="inline limits">
    <input type="hidden" name="_csrf" value="${csrf}" />
    <label for="${idp}-day"
      >USD per day
      <input
        id="${idp}-day"
        name="usd_per_day"
        type="number"
        min="0"
        step="any"
        value="${num(l.usd_per_day)}"
    /></label>
    <label for="${idp}-month"
      >USD per month
      <input
        id="${idp}-month"
        name="usd_per_month"
        type="number"
        min="0"
        step="any"
        value="${num(l.usd_per_month)}"
    /></label>
    <label for="${idp}-usd"
      >Max USD per query
      <input
        id="${idp}-usd"
        name="max_usd_per_query"
        type="number"
        min="0"
        step="any"
        value="${num(l.max_usd_per_query)}"
    /></label>
    <label for="${idp}-bytes"
      >Max bytes per query
      <input
        id="${idp}-bytes"
        name="max_bytes_per_query"
        type="number"
        min="0"
        step="1"
        value="${num(l.max_bytes_per_query)}"
    /></label>
    <button type="submit">Save limits</button>
  </form>`;

const budgetsPage = (o: {
  viewer: Viewer;
  day: Usage;
  month: Usage;
  account: LimitsView;
  keys: { id: string; name: string; limits: LimitsView }[];
  top?: HtmlValue;
}) =>
  layout({
    title: 'Budgets',
    viewer: o.viewer,
    active: 'budgets',
    body: html`<h1>Budgets and limits</h1>
      ${o.top}
      <p>
        Empty fields mean no limit. A query whose estimate passes a per-query limit is refused (422); one
        whose estimate is more than a budget has left is refused (429) until the budget resets (UTC midnight,
        or the first of the month).
      </p>
      <h2>Account</h2>
      ${bar('Today', o.day.account, 'acct-day')} ${bar('This month', o.month.account, 'acct-month')}
      ${limitsForm('/budgets/account', o.account, o.viewer.csrfToken, 'acct')}
      <h2>API keys</h2>
      ${o.keys.length === 0 ? html`<p>No active API keys.</p>` : ''}
      ${o.keys.map((k) => {
        const day = o.day.keys.find((x) => x.key_id === k.id);
        const month = o.month.keys.find((x) => x.key_id === k.id);
        return html`<section data-key-id="${k.id}">
          <h3>${k.name}</h3>
          ${day ? bar('Today', day, `${k.id}-day`) : ''}
          ${month ? bar('This month', month, `${k.id}-month`) : ''}
          ${limitsForm(`/budgets/keys/${encodeURIComponent(k.id)}`, k.limits, o.viewer.csrfToken, k.id)}
        </section>`;
      })}`,
  });

/** The form's fields as limits: empty is none; anything else must be a finite number ≥ 0. */
const parseLimits = (read: (name: string) => string): LimitsInput | string => {
  const out: LimitsInput = {};
  for (const name of ['usd_per_day', 'usd_per_month', 'max_usd_per_query', 'max_bytes_per_query'] as const) {
    const v = read(name).trim();
    if (v === '') {
      out[name] = null;
      continue;
    }
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || n > 1e15) return `${name.replaceAll('_', ' ')} must be a number ≥ 0.`;
    if (name === 'max_bytes_per_query' && !Number.isInteger(n))
      return 'max bytes per query must be whole bytes.';
    out[name] = n;
  }
  return out;
};

export const registerBudgetPages = (app: FastifyInstance, deps: DashboardDeps): void => {
  const g = deps.services.guardrails;
  const render = async (viewer: Viewer & { accountId: string }, top?: HtmlValue) => {
    const [day, month, account, keys] = await Promise.all([
      g.usage(viewer.accountId, 'day'),
      g.usage(viewer.accountId, 'month'),
      g.accountLimits(viewer.accountId),
      deps.services.keys.list(viewer.accountId),
    ]);
    const live = keys.filter((k) => !k.revokedAt);
    const limits = await Promise.all(live.map((k) => g.keyLimits(viewer.accountId, k.id)));
    return budgetsPage({
      viewer,
      day,
      month,
      account,
      keys: live.map((k, i) => ({ id: k.id, name: k.name, limits: limits[i] as LimitsView })),
      ...(top !== undefined ? { top } : {}),
    });
  };

  app.get('/budgets', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const saved = (req.query as Record<string, unknown>).saved !== undefined;
    const top = saved ? html`<p class="notice" role="status">The limits were saved.</p>` : undefined;
    return sendPage(reply, 200, await render(s, top));
  });

  const save = async (req: FastifyRequest, reply: FastifyReply, keyId: string | undefined) => {
    const s = sessionOf(req);
    const parsed = parseLimits((n) => field(req, n));
    if (typeof parsed === 'string')
      return sendPage(reply, 422, await render(s, html`<p class="error" role="alert">${parsed}</p>`));
    if (keyId === undefined) await g.setAccountLimits(s.accountId, parsed);
    else {
      const key = (await deps.services.keys.list(s.accountId)).find((k) => k.id === keyId && !k.revokedAt);
      if (!key) return sendNotFoundPage(reply, s);
      await g.setKeyLimits(s.accountId, keyId, parsed);
    }
    return reply.redirect('/budgets?saved=1', 303);
  };
  app.post('/budgets/account', { schema: { hide: true } }, (req, reply) => save(req, reply, undefined));
  app.post<{ Params: { id: string } }>('/budgets/keys/:id', { schema: { hide: true } }, (req, reply) =>
    save(req, reply, req.params.id),
  );
};
