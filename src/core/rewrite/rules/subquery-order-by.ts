import { isRecord, kindOf } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import { observedOrders, readsInputOrder } from '../order-observed.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import type { SelectBody } from '../selects.ts';

/** A SELECT with an ORDER BY, and whether a consumer observes its rows' order (order-observed.ts). */
type Site = { readonly s: SelectBody; readonly observed: boolean };

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'order-chooses-no-rows',
    needs: ['order'],
    text: 'the ORDER BY decides nothing inside its own SELECT: no LIMIT/OFFSET/FETCH/TOP or DISTINCT ON (the order picks which rows survive), no order-sensitive aggregate or window function, no user variable',
    holds: ({ s }) => !readsInputOrder(s),
  },
  {
    id: 'order-not-observed',
    needs: ['order'],
    text: 'no consumer observes the order of its rows: not the client (the outermost query, or rows passed on to it unordered through projections, filters, joins and UNION ALL), not a row limit or DISTINCT ON outside, not an order-sensitive aggregate (string_agg, array_agg, group_concat, listagg, json_agg, first/last, any_value…) or window function (row_number() OVER (), lag, first_value, ROWS frames…), not ARRAY(…) or another function; only membership tests (IN, EXISTS, ANY/ALL), scalar subqueries, grouping, DISTINCT, set operations without ALL and a re-ordering consumer',
    holds: ({ observed }) => !observed,
  },
];

/** The tree with the ORDER BY of the given SELECT bodies dropped, top-down (identity of untouched parts kept). */
const strip = (v: unknown, drop: ReadonlySet<unknown>): unknown => {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x, i) => {
      const next = strip(x, drop);
      if (next !== x) (out ??= v.slice())[i] = next;
    });
    return out ?? v;
  }
  if (!isRecord(v)) return v;
  let self: Record<string, unknown> = v;
  const body = kindOf(v) === 'select' && isRecord(v.select) ? v.select : undefined;
  if (body && drop.has(body)) self = { select: { ...body, order_by: null } };
  let copy: Record<string, unknown> | undefined;
  const target = kindOf(self) === 'select' ? (self.select as Record<string, unknown>) : self;
  for (const k in target) {
    const child = target[k];
    if (k === 'span' || typeof child !== 'object' || child === null) continue;
    const next = strip(child, drop);
    if (next !== child) (copy ??= { ...target })[k] = next;
  }
  if (!copy) return self;
  return target === self ? copy : { select: copy };
};

/**
 * `subquery-order-by`: drops the ORDER BY of a subquery (derived table, CTE body, IN/EXISTS/scalar subquery,
 * set-operation branch) when nothing can observe the order of its rows. The outermost query's ORDER BY is
 * never touched.
 *
 * Why results are kept: a relation has no order, but engines hand rows on in the order they come, and some
 * readers depend on it. The choice made (order-observed.ts): the order counts as observed — and the ORDER BY
 * stays — under a row limit or DISTINCT ON in the same SELECT (the order picks the rows), when the client sees
 * the rows (the outermost query without its own ORDER BY, reached through projections, filters, joins and
 * UNION ALL), under an outer row limit or DISTINCT ON, and under order-sensitive aggregates (string_agg,
 * array_agg, group_concat, listagg, json_agg, first/last, any_value…, even with their own ORDER BY, whose
 * ties the input order breaks), order-sensitive window functions (row_number() OVER (), lag/lead,
 * first_value, ntile, ROWS frames), MySQL's non-aggregated GROUP BY columns, ARRAY(…) and other function
 * arguments, user variables and LATERAL. It is dropped under IN / EXISTS / ANY / ALL, scalar subqueries,
 * GROUP BY and plain aggregates, DISTINCT, UNION / INTERSECT / EXCEPT without ALL, and a reader with its own
 * ORDER BY and no row limit. (BigQuery `ARRAY(SELECT … ORDER BY …)` is never touched.)
 *
 * @example `SELECT COUNT(*) FROM (SELECT a FROM t ORDER BY a) AS d` → `SELECT COUNT(*) FROM (SELECT a FROM t) AS d`
 */
export const subqueryOrderBy: RewriteRule = {
  name: 'subquery-order-by',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@order_by'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx: RuleContext) => {
    const drop = new Set<unknown>();
    const root = isRecord(tree.select) ? tree.select : undefined;
    for (const [s, observed] of observedOrders(tree))
      if (s !== root && discharge(subqueryOrderBy.name, OBLIGATIONS, { s: s as SelectBody, observed }, ctx))
        drop.add(s);
    return drop.size === 0 ? tree : (strip(tree, drop) as typeof tree);
  },
};
