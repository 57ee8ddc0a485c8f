import type { FastifyInstance } from 'fastify';
import {
  dailySeries,
  queryTotals,
  topRulesBySavings,
  totalsByWarehouse,
} from '../../../store/query-stats.ts';
import { barChart } from '../chart.ts';
import type { DashboardDeps } from '../deps.ts';
import { html } from '../html.ts';
import { formatUsd, layout, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';

const DAYS = 30;

export const registerOverviewPage = (app: FastifyInstance, deps: DashboardDeps): void => {
  const { db, keys } = deps.services;
  app.get('/overview', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const [totals, series, rules, warehouses, myKeys] = await Promise.all([
      queryTotals(db, s.accountId),
      dailySeries(db, s.accountId, DAYS),
      topRulesBySavings(db, s.accountId, 10),
      totalsByWarehouse(db, s.accountId),
      keys.list(s.accountId),
    ]);
    const start =
      myKeys.length === 0
        ? html`<p class="notice">
            Start by <a href="/keys">creating an API key</a>, then send queries to <code>POST /query</code>.
          </p>`
        : '';
    const body = html`<h1>Overview</h1>
      ${start}
      <dl class="cards" data-testid="totals">
        <div>
          <dt>Queries</dt>
          <dd data-testid="total-queries">${totals.queries.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Original cost</dt>
          <dd>${formatUsd(totals.original)}</dd>
        </div>
        <div>
          <dt>Optimized cost</dt>
          <dd>${formatUsd(totals.optimized)}</dd>
        </div>
        <div>
          <dt>Saved</dt>
          <dd data-testid="total-saved">${formatUsd(totals.saved)}</dd>
        </div>
      </dl>
      <h2>Last ${DAYS} days</h2>
      ${barChart({
        id: 'chart-queries',
        title: `Queries per day, last ${DAYS} days`,
        points: series.map((p) => ({ label: p.day, value: p.queries })),
        format: (v) => (Number.isInteger(v) ? String(v) : v.toFixed(1)),
        color: '#0b5cad',
      })}
      ${barChart({
        id: 'chart-savings',
        title: `USD saved per day, last ${DAYS} days`,
        points: series.map((p) => ({ label: p.day, value: p.saved })),
        format: (v) => formatUsd(v),
        color: '#1a7f37',
      })}
      <h2>Top rewrite rules by savings</h2>
      ${
        rules.length === 0
          ? html`<p>No rewrite rule has changed a query yet.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col" class="num">Queries</th>
                  <th scope="col" class="num">USD saved</th>
                </tr>
              </thead>
              <tbody>
                ${rules.map(
                  (r) =>
                    html`<tr>
                      <td><code>${r.rule}</code></td>
                      <td class="num">${r.queries}</td>
                      <td class="num">${formatUsd(r.saved)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      <h2>By warehouse</h2>
      ${
        warehouses.length === 0
          ? html`<p>No queries yet.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Warehouse</th>
                  <th scope="col" class="num">Queries</th>
                  <th scope="col" class="num">Original</th>
                  <th scope="col" class="num">Optimized</th>
                  <th scope="col" class="num">Saved</th>
                </tr>
              </thead>
              <tbody>
                ${warehouses.map(
                  (w) =>
                    html`<tr>
                      <td>${w.warehouse}</td>
                      <td class="num">${w.queries}</td>
                      <td class="num">${formatUsd(w.original)}</td>
                      <td class="num">${formatUsd(w.optimized)}</td>
                      <td class="num">${formatUsd(w.saved)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }`;
    return sendPage(reply, 200, layout({ title: 'Overview', viewer: s, active: 'overview', body }));
  });
};
