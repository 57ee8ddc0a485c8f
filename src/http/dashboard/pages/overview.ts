import type { FastifyInstance } from 'fastify';
import { dailySeries, totalsByWarehouse } from '../../../store/query-stats.ts';
import { cumulativeSavings, savingsByRule, savingsSummary } from '../../../store/dashboard-savings.ts';
import { cumulativeChart, outcomeSplit, rulesTable, savingsCards } from '../savings-views.ts';
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
    const [series, rules, warehouses, myKeys, summary, cumulative] = await Promise.all([
      dailySeries(db, s.accountId, DAYS),
      savingsByRule(db, s.accountId),
      totalsByWarehouse(db, s.accountId),
      keys.list(s.accountId),
      savingsSummary(db, s.accountId),
      cumulativeSavings(db, s.accountId, DAYS),
    ]);
    const start =
      myKeys.length === 0
        ? html`<p class="notice">
            Start by <a href="/keys">creating an API key</a>, then send queries to <code>POST /query</code>.
          </p>`
        : '';
    const body = html`<h1>Overview</h1>
      ${start} ${savingsCards(summary)} ${outcomeSplit(summary)}
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
      ${cumulativeChart(cumulative, DAYS)}
      <h2>Savings by rewrite rule</h2>
      ${rulesTable(rules, summary.saved)}
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
