import type { FastifyInstance } from 'fastify';
import { diffWords } from '../../../core/text-diff.ts';
import type { DiffSegment } from '../../../core/text-diff.ts';
import { distinctWarehouses, findQueryLogEntry } from '../../../store/query-stats.ts';
import type { QueryLogFilter } from '../../../store/query-stats.ts';
import { QUERY_SORTS, searchQueries } from '../../../store/query-search.ts';
import type { QuerySearch, QuerySort } from '../../../store/query-search.ts';
import { errorDetailOf } from '../../../store/dashboard-savings.ts';
import {
  bytesCell,
  detailExtras,
  formatBytes,
  percentSaved,
  prettyDiffTexts,
  rulesCell,
  sortHeader,
} from '../query-views.ts';
import { WAREHOUSE_NAMES, WAREHOUSES } from '../../../warehouses/index.ts';
import type { DashboardDeps } from '../deps.ts';
import { html } from '../html.ts';
import { formatTime, formatUsd, layout, sendNotFoundPage, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';
import { findShadowCheck } from '../../../store/shadow-checks.ts';
import { shadowCheckSection } from './shadow-check.ts';

const PAGE_SIZE = 25;
type Query = Record<string, string | undefined>;

const day = (v: string | undefined): Date | undefined =>
  v !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))
    ? new Date(`${v}T00:00:00Z`)
    : undefined;

/** Unknown filter values are ignored rather than refused: the form only offers valid ones. */
const filterOf = (q: Query): QueryLogFilter => ({
  warehouse:
    q.warehouse !== undefined && /^[a-z][a-z0-9_-]{0,63}$/.test(q.warehouse) ? q.warehouse : undefined,
  status: q.status === 'ok' || q.status === 'error' ? q.status : undefined,
  from: day(q.from),
  to: day(q.to),
});

/** The filter plus the text search and the order (unknown values fall back to newest first). */
const searchOf = (q: Query): QuerySearch => ({
  ...filterOf(q),
  text: q.q !== undefined && q.q.length <= 200 ? q.q : undefined,
  sort: (QUERY_SORTS as readonly string[]).includes(q.sort ?? '') ? (q.sort as QuerySort) : undefined,
  direction: q.dir === 'asc' ? 'asc' : undefined,
});

const selectOptions = (values: readonly string[], selected: string | undefined, anyLabel: string) =>
  html` <option value="">${anyLabel}</option>
    ${values.map((v) => html`<option value="${v}" ${v === selected ? html`selected` : ''}>${v}</option>`)}`;

const segments = (segs: readonly DiffSegment[], tag: 'del' | 'ins') =>
  segs.map((s) =>
    s.kind === 'same'
      ? html`${s.text}`
      : tag === 'del'
        ? html`<del>${s.text}</del>`
        : html`<ins>${s.text}</ins>`,
  );

export const registerQueryPages = (app: FastifyInstance, deps: DashboardDeps): void => {
  const { db } = deps.services;

  app.get('/queries', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const q = req.query as Query;
    const filter = searchOf(q);
    const page = Math.max(1, Math.min(100_000, Number.parseInt(q.page ?? '1', 10) || 1));
    const [{ records, total }, seen] = await Promise.all([
      searchQueries(db, s.accountId, filter, PAGE_SIZE, (page - 1) * PAGE_SIZE),
      distinctWarehouses(db, s.accountId),
    ]);
    const warehouses = [...new Set([...WAREHOUSE_NAMES, ...seen])];
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    const link = (p: number) => {
      const params = new URLSearchParams();
      for (const k of ['q', 'warehouse', 'status', 'from', 'to', 'sort', 'dir'] as const)
        if (q[k]) params.set(k, q[k]);
      params.set('page', String(p));
      return `/queries?${params.toString()}`;
    };
    const body = html`<h1>Queries</h1>
      <form method="get" action="/queries" class="inline" aria-label="Filter queries">
        <label for="f-q"
          >Search SQL
          <input
            id="f-q"
            name="q"
            type="search"
            maxlength="200"
            value="${filter.text ?? ''}"
            placeholder="lineitem"
        /></label>
        ${filter.sort ? html`<input type="hidden" name="sort" value="${filter.sort}" />` : ''}
        ${filter.direction ? html`<input type="hidden" name="dir" value="${filter.direction}" />` : ''}
        <label for="f-warehouse"
          >Warehouse
          <select id="f-warehouse" name="warehouse">
            ${selectOptions(warehouses, filter.warehouse, 'All warehouses')}
          </select></label
        >
        <label for="f-status"
          >Status
          <select id="f-status" name="status">
            ${selectOptions(['ok', 'error'], filter.status, 'Any status')}
          </select></label
        >
        <label for="f-from"
          >From <input id="f-from" name="from" type="date" value="${filter.from ? q.from : ''}"
        /></label>
        <label for="f-to"
          >To <input id="f-to" name="to" type="date" value="${filter.to ? q.to : ''}"
        /></label>
        <button type="submit">Filter</button>
      </form>
      <p>${total.toLocaleString('en-US')} ${total === 1 ? 'query' : 'queries'}.</p>
      ${
        records.length === 0
          ? html`<p>No queries match.</p>`
          : html`<table data-testid="query-log">
              <thead>
                <tr>
                  ${sortHeader(q, filter, 'time', 'Time')}
                  <th scope="col">Warehouse</th>
                  <th scope="col">Status</th>
                  <th scope="col">Query</th>
                  <th scope="col">Rules</th>
                  ${sortHeader(q, filter, 'bytes', 'Bytes', true)}
                  ${sortHeader(q, filter, 'saved', 'Saved', true)}
                  ${sortHeader(q, filter, 'duration', 'Duration', true)}
                </tr>
              </thead>
              <tbody>
                ${records.map(
                  (r) =>
                    html`<tr>
                      <td><a href="/queries/${r.id}">${formatTime(r.createdAt)}</a></td>
                      <td>${r.warehouse}</td>
                      <td class="status-${r.status}">
                        ${r.status}${r.errorCode ? html` (${r.errorCode})` : ''}
                      </td>
                      <td>
                        <code
                          >${r.originalSql.length > 100 ? `${r.originalSql.slice(0, 100)}…` : r.originalSql}</code
                        >
                      </td>
                      <td>${rulesCell(r)}</td>
                      <td class="num">${bytesCell(r)}</td>
                      <td class="num">${formatUsd(r.savings)}</td>
                      <td class="num">${r.durationMs.toFixed(0)} ms</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      <nav class="pager" aria-label="Pages">
        ${page > 1 ? html`<a href="${link(page - 1)}" rel="prev">Previous page</a>` : ''}
        <span>Page ${page} of ${pages}</span>
        ${page < pages ? html`<a href="${link(page + 1)}" rel="next">Next page</a>` : ''}
      </nav>`;
    return sendPage(reply, 200, layout({ title: 'Queries', viewer: s, active: 'queries', body }));
  });

  app.get<{ Params: { id: string } }>('/queries/:id', { schema: { hide: true } }, async (req, reply) => {
    const s = sessionOf(req);
    const r = await findQueryLogEntry(db, s.accountId, req.params.id);
    if (!r) return sendNotFoundPage(reply, s);
    const shadow = await findShadowCheck(db, r.id);
    const dialect = WAREHOUSES.find((w) => w.name === r.warehouse)?.dialects[0];
    const texts = prettyDiffTexts(r.originalSql, r.rewrittenSql ?? r.originalSql, dialect);
    const d = diffWords(texts.original, texts.rewritten);
    const failure = r.status === 'error' ? await errorDetailOf(db, r.id) : undefined;
    const row = (label: string, value: unknown) =>
      html`<tr>
        <th scope="row">${label}</th>
        <td>${String(value)}</td>
      </tr>`;
    const body = html`<h1>Query ${r.id}</h1>
      <p><a href="/queries">Back to the query log</a></p>
      ${detailExtras(r, failure)}
      <div class="diff">
        <section aria-labelledby="orig-h">
          <h2 id="orig-h">Original SQL</h2>
          <pre data-testid="original-sql">${segments(d.left, 'del')}</pre>
        </section>
        <section aria-labelledby="rew-h">
          <h2 id="rew-h">Rewritten SQL</h2>
          <pre data-testid="rewritten-sql">${segments(d.right, 'ins')}</pre>
        </section>
      </div>
      <p>
        Removed text is <del>struck through</del>; added text is
        <ins>highlighted</ins>.${r.fallback ? ' The rewrite was skipped: the original ran.' : ''}
      </p>
      <h2>Details</h2>
      <table>
        <tbody>
          ${row('Time', formatTime(r.createdAt))} ${row('Warehouse', r.warehouse)}
          ${row('Status', r.errorCode ? `${r.status} (${r.errorCode})` : r.status)}
          ${row('Rules applied', r.rulesApplied.length > 0 ? r.rulesApplied.join(', ') : 'none')}
          ${row('Original cost', formatUsd(r.originalCost))}
          ${row('Optimized cost', formatUsd(r.optimizedCost))} ${row('Saved', formatUsd(r.savings))}
          ${row('Bytes before', formatBytes(r.bytesOriginal))}
          ${row('Bytes after', formatBytes(r.bytesOptimized))}
          ${row('Bytes saved', percentSaved(r.bytesOriginal, r.bytesOptimized))}
          ${row('Cost method', r.costMethod ?? '—')} ${row('Duration', `${r.durationMs.toFixed(1)} ms`)}
          ${row('Rows', r.rows ?? '—')} ${row('Trace id', r.traceId)}
        </tbody>
      </table>
      ${shadowCheckSection(shadow)}`;
    return sendPage(reply, 200, layout({ title: `Query ${r.id}`, viewer: s, active: 'queries', body }));
  });
};
