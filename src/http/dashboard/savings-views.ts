import type { SavingsSummary } from '../../store/dashboard-savings.ts';
import { barChart } from './chart.ts';
import { html } from './html.ts';
import type { HtmlValue, SafeHtml } from './html.ts';
import { formatUsd } from './layout.ts';

/** 45_200_000 → "45.2 MB" (decimal units, as the warehouses bill). */
export const formatBytes = (n: number | null): string => {
  if (n === null) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
};

/** Share saved of `before`, as "84.6 %"; "—" when there was nothing to save from. */
export const percentSaved = (before: number | null, after: number | null): string =>
  before === null || after === null || before <= 0
    ? '—'
    : `${(((before - after) / before) * 100).toFixed(1).replace(/\.0$/, '')} %`;

const card = (label: string, value: HtmlValue, testid: string, note?: HtmlValue) =>
  html`<div>
    <dt>${label}</dt>
    <dd data-testid="${testid}">${value}</dd>
    ${note ? html`<dd class="note">${note}</dd>` : ''}
  </div>`;

/** The overview's savings cards: dollars with the bytes and percent behind them. */
export const savingsCards = (t: SavingsSummary): SafeHtml =>
  html`<dl class="cards" data-testid="savings">
    ${card('Queries', t.queries.toLocaleString('en-US'), 'total-queries')}
    ${card(
      'Saved',
      formatUsd(t.saved),
      'total-saved',
      html`${percentSaved(t.original, t.optimized)} of ${formatUsd(t.original)}`,
    )}
    ${card(
      'Bytes saved',
      formatBytes(t.bytesOriginal - t.bytesOptimized),
      'saved-bytes',
      html`${percentSaved(t.bytesOriginal, t.bytesOptimized)} of ${formatBytes(t.bytesOriginal)} scanned`,
    )}
    ${card('Original cost', formatUsd(t.original), 'original-usd')}
    ${card('Optimized cost', formatUsd(t.optimized), 'optimized-usd')}
  </dl>`;

/** What happened to the queries: rewritten, not rewritten, fell back, failed (they add up to all queries). */
export const outcomeSplit = (t: SavingsSummary): SafeHtml => {
  const parts: Array<[string, number, string, string]> = [
    ['Rewritten', t.rewritten, 'rewritten', 'a rule changed the query and the cheaper form ran'],
    ['Not rewritten', t.notRewritten, 'not-rewritten', 'no rule could prove a cheaper equivalent'],
    [
      'Fell back',
      t.fellBack,
      'fell-back',
      'the rewrite was skipped (time budget or an error); the original ran',
    ],
    ['Failed', t.failed, 'failed', 'the query did not complete'],
  ];
  const pct = (n: number) => (t.queries === 0 ? '—' : `${((n / t.queries) * 100).toFixed(0)} %`);
  return html`<table data-testid="outcomes">
    <caption>
      What happened to ${t.queries.toLocaleString('en-US')} ${t.queries === 1 ? 'query' : 'queries'}
    </caption>
    <thead>
      <tr>
        <th scope="col">Outcome</th>
        <th scope="col" class="num">Queries</th>
        <th scope="col" class="num">Share</th>
        <th scope="col">Meaning</th>
      </tr>
    </thead>
    <tbody>
      ${parts.map(
        ([label, n, id, meaning]) =>
          html`<tr data-outcome="${id}">
            <th scope="row">${label}</th>
            <td class="num">${n.toLocaleString('en-US')}</td>
            <td class="num">${pct(n)}</td>
            <td>${meaning}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
};

/** Savings per rule; each query's saving split equally among its rules, so the column adds up to the total. */
export const rulesTable = (
  rules: ReadonlyArray<{ rule: string | null; queries: number; saved: number }>,
  total: number,
): SafeHtml =>
  rules.length === 0
    ? html`<p>No rewrite rule has changed a query yet.</p>`
    : html`<table data-testid="rules">
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
                  <td>${r.rule === null ? 'no rule' : html`<code>${r.rule}</code>`}</td>
                  <td class="num">${r.queries}</td>
                  <td class="num" data-saved="${r.saved}">${formatUsd(r.saved)}</td>
                </tr>`,
            )}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td></td>
              <td class="num" data-testid="rules-total" data-saved="${total}">${formatUsd(total)}</td>
            </tr>
          </tfoot>
        </table>
        <p class="note">
          A query changed by several rules counts for each of them, with its saving split equally.
        </p>`;

export const cumulativeChart = (points: ReadonlyArray<{ day: string; saved: number }>, days: number) =>
  barChart({
    id: 'chart-cumulative',
    title: `Total USD saved so far, day by day, last ${days} days`,
    points: points.map((p) => ({ label: p.day, value: p.saved })),
    format: (v) => formatUsd(v),
    color: '#1a7f37',
  });
