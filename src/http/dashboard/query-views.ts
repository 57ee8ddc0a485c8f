import type { SqlDialect } from '../../core/sql/dialect.ts';
import { prettySql } from '../../core/sql/print.ts';
import type { QueryLogRecord } from '../../store/query-log.ts';
import type { QuerySearch, QuerySort } from '../../store/query-search.ts';
import { html } from './html.ts';
import type { SafeHtml } from './html.ts';
import { formatUsd } from './layout.ts';
import { formatBytes, percentSaved } from './savings-views.ts';

export { formatBytes, percentSaved };

/** The query log's bytes cell: "45.2 MB → 6.89 MB (−84.6 %)". */
export const bytesCell = (r: QueryLogRecord): SafeHtml =>
  r.bytesOriginal === null
    ? html`—`
    : r.bytesOptimized === null || r.bytesOptimized === r.bytesOriginal
      ? html`${formatBytes(r.bytesOriginal)}`
      : html`${formatBytes(r.bytesOriginal)} → ${formatBytes(r.bytesOptimized)}
          <span class="note">(−${percentSaved(r.bytesOriginal, r.bytesOptimized)})</span>`;

export const rulesCell = (r: QueryLogRecord): SafeHtml =>
  r.rulesApplied.length === 0
    ? html`<span class="note">${r.fallback ? 'fell back' : 'none'}</span>`
    : html`${r.rulesApplied.map((rule, i) => html`${i > 0 ? ', ' : ''}<code>${rule}</code>`)}`;

/**
 * A column header that sorts the log by `key`: a link that keeps the filters and search, toggling the
 * direction when the log is already sorted by it (`aria-sort` says how it is sorted now).
 */
export const sortHeader = (
  q: Readonly<Record<string, string | undefined>>,
  s: QuerySearch,
  key: QuerySort,
  label: string,
  numeric = false,
): SafeHtml => {
  const current = (s.sort ?? 'time') === key;
  const dir = current ? (s.direction ?? 'desc') : undefined;
  const params = new URLSearchParams();
  for (const k of ['q', 'warehouse', 'status', 'from', 'to'] as const) if (q[k]) params.set(k, q[k]);
  params.set('sort', key);
  params.set('dir', dir === 'desc' ? 'asc' : 'desc');
  const sortState = dir === undefined ? 'none' : dir === 'asc' ? 'ascending' : 'descending';
  return html`<th scope="col" class="${numeric ? 'num' : ''}" aria-sort="${sortState}">
    <a href="/queries?${params.toString()}" data-sort="${key}"
      >${label}${dir === undefined ? '' : dir === 'asc' ? ' ▲' : ' ▼'}<span class="visually-hidden">
        (sort)</span
      ></a
    >
  </th>`;
};

/**
 * Both texts laid out the same way (one clause per line), so the diff shows what a rule changed rather than
 * where the lines broke; each stays as written when it cannot be laid out.
 */
export const prettyDiffTexts = (
  original: string,
  rewritten: string,
  dialect: SqlDialect | undefined,
): { original: string; rewritten: string } => {
  if (dialect === undefined) return { original, rewritten };
  const a = prettySql(original, dialect);
  const b = original === rewritten ? a : prettySql(rewritten, dialect);
  return a !== undefined && b !== undefined ? { original: a, rewritten: b } : { original, rewritten };
};

/** Above the diff: what was saved (bytes and dollars), or, for a failed query, why it failed. */
export const detailExtras = (r: QueryLogRecord, failure: string | undefined): SafeHtml => {
  if (r.status === 'error')
    return html`<section class="failure" aria-labelledby="failure-h" data-testid="failure">
      <h2 id="failure-h">Why it failed</h2>
      <p><code>${r.errorCode ?? 'error'}</code></p>
      ${
        failure
          ? html`<pre data-testid="failure-message">${failure}</pre>`
          : html`<p class="note">No message was recorded for this query.</p>`
      }
    </section>`;
  return html`<p data-testid="saving-summary">
    ${
      r.bytesOriginal !== null
        ? html`Scanned <strong data-testid="bytes-before">${formatBytes(r.bytesOriginal)}</strong> →
            <strong data-testid="bytes-after">${formatBytes(r.bytesOptimized)}</strong>
            (${percentSaved(r.bytesOriginal, r.bytesOptimized)} less);`
        : ''
    }
    saved <strong>${formatUsd(r.savings)}</strong> of ${formatUsd(r.originalCost)}.
  </p>`;
};
