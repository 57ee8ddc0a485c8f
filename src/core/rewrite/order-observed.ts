import { isRecord, kindOf } from '../sql/tree.ts';
import { hasRowLimit, plainGroupKeys } from './selects.ts';
import type { SelectBody } from './selects.ts';
import { cteReferences } from './cte-scope.ts';
import { bodyOf, sameNode, someNode } from './tree-ops.ts';

/**
 * Where the order of a subquery's rows can be observed. A relation has no order, but engines pass rows on
 * in the order they come, and some consumers read that order: the client (the outermost query without ORDER
 * BY, through projections, filters, joins and UNION ALL), a row limit (LIMIT/OFFSET/FETCH/TOP picks the first
 * rows), DISTINCT ON (keeps the first row per key), order-sensitive aggregates (string_agg, array_agg,
 * group_concat, listagg, json_agg, first/last, any_value…, with or without their own ORDER BY, whose ties the
 * input order still breaks), order-sensitive window functions (row_number, lag/lead, first_value, ntile…, and
 * any window frame in ROWS), MySQL's non-aggregated columns of a GROUP BY (the first row's value), ARRAY(…),
 * user variables. Contexts that only test membership (IN, EXISTS, ANY/ALL) or read one value (a scalar
 * subquery) do not observe it; neither do GROUP BY, DISTINCT, UNION/INTERSECT/EXCEPT without ALL, nor a query
 * with its own ORDER BY (and no row limit). Anything not recognised observes it.
 */

const ORDER_SENSITIVE_AGGREGATES = new Set([
  'string_agg',
  'array_agg',
  'group_concat',
  'listagg',
  'json_agg',
  'jsonb_agg',
  'json_object_agg',
  'jsonb_object_agg',
  'json_group_array',
  'json_group_object',
  'array_concat_agg',
  'xmlagg',
  'first',
  'last',
  'any_value',
  'arbitrary',
  'list',
  'histogram',
  'group_array',
  'json_arrayagg',
  'json_objectagg',
  'collect_list',
  'arg_min',
  'arg_max',
  'argmin',
  'argmax',
  'min_by',
  'max_by',
  'mode',
  'approx_top_k',
  'first_value',
  'last_value',
  'nth_value',
]);

/** Window functions whose value does not depend on the order of peers: whole-partition aggregates, ranks. */
const ORDER_FREE_WINDOWS = new Set([
  'sum',
  'count',
  'min',
  'max',
  'avg',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
]);

const nameOf = (n: Record<string, unknown>, k: string): string => {
  const body = n[k];
  if (isRecord(body) && typeof body.name === 'string' && (k === 'function' || k === 'aggregate_function'))
    return body.name.toLowerCase();
  return k;
};

const windowReadsOrder = (w: Record<string, unknown>): boolean => {
  const fn = w.this;
  const kind = kindOf(fn);
  const name = kind === undefined ? '' : nameOf(fn as Record<string, unknown>, kind);
  const over = isRecord(w.over) ? w.over : {};
  const ordered = Array.isArray(over.order_by) && over.order_by.length > 0;
  const frame = over.frame !== null && over.frame !== undefined;
  if (name === 'rank' || name === 'dense_rank' || name === 'percent_rank' || name === 'cume_dist')
    return frame;
  return !ORDER_FREE_WINDOWS.has(name) || ordered || frame;
};

/** Whether SELECT `s` itself reads the order of its input rows (not looking into subqueries). */
export const readsInputOrder = (s: SelectBody): boolean => {
  if (hasRowLimit(s) || (s.distinct_on !== null && s.distinct_on !== undefined)) return true;
  const own = { ...s, from: null, joins: null, with: null };
  const sensitive = someNode(
    own,
    (n, k) =>
      ORDER_SENSITIVE_AGGREGATES.has(nameOf(n, k)) ||
      // Any other list-building aggregate (…_agg, …agg) concatenates in reading order.
      (/agg$/.test(nameOf(n, k)) && nameOf(n, k) !== 'aggregate_function') ||
      (k === 'window_function' && windowReadsOrder(n[k] as Record<string, unknown>)) ||
      k === 'user_variable' ||
      k === 'session_parameter',
    (_n, k) => k !== 'subquery' && k !== 'select' && k !== 'exists',
  );
  if (sensitive) return true;
  // MySQL lets a grouped query read columns that are neither keys nor aggregated: the first row's value.
  const keys = plainGroupKeys(s);
  if (!keys) return false;
  return someNode(
    [s.expressions, s.having, s.order_by],
    (n, k) => k === 'column' && !keys.some((g) => sameNode(g, n) || someNode(g, (x) => sameNode(x, n))),
    (n, k) =>
      k !== 'subquery' &&
      k !== 'select' &&
      k !== 'exists' &&
      !keys.some((g) => sameNode(g, n)) &&
      !/(^|_)(count|sum|avg|min|max|agg)$/.test(nameOf(n, k)),
  );
};

const isGrouping = (s: SelectBody): boolean =>
  (s.group_by !== null && s.group_by !== undefined) ||
  s.distinct === true ||
  someNode(
    s.expressions,
    (n, k) => /^(count|sum|avg|min|max)$/.test(nameOf(n, k)),
    (_n, k) => k !== 'subquery' && k !== 'select' && k !== 'window_function',
  );

/**
 * Every SELECT body of the tree that has an ORDER BY (by identity), with whether a consumer can observe the
 * order of its rows. The outermost query's order is always observed (the client reads it).
 */
export const observedOrders = (tree: unknown): Map<unknown, boolean> => {
  const out = new Map<unknown, boolean>();
  const cteRefs = cteReferences(tree);
  const cteObserved = new Map<unknown, boolean>();
  const markCte = (tableNode: unknown, observed: boolean): void => {
    const body = cteRefs.get(tableNode);
    if (body !== undefined && body !== null)
      cteObserved.set(body, (cteObserved.get(body) ?? false) || observed);
  };

  const query = (v: unknown, observed: boolean): void => {
    const kind = kindOf(v);
    const body = kind === undefined ? undefined : bodyOf(v, kind);
    if (!body || kind === undefined) return expr(v, true);
    if (kind === 'select') return select(body, observed);
    if (kind === 'union' || kind === 'intersect' || kind === 'except') {
      const limited = [body.limit, body.offset, body.fetch].some((x) => x !== null && x !== undefined);
      const ordered = body.order_by !== null && body.order_by !== undefined;
      const branches = limited || (kind === 'union' && body.all === true && !ordered && observed);
      withClause(body, () => {
        query(body.left, branches);
        query(body.right, branches);
        expr({ ...body, left: null, right: null, with: null }, true);
      });
      return;
    }
    if (kind === 'subquery' || kind === 'paren') {
      const own = [body.order_by, body.limit, body.offset].some((x) => x !== null && x !== undefined);
      query(body.this, observed || own);
      return;
    }
    expr(v, true);
  };

  const withClause = (body: Record<string, unknown>, inner: () => void): void => {
    inner();
    const w = body.with;
    if (!isRecord(w) || !Array.isArray(w.ctes)) return;
    // Readers of a CTE come after it (or in the body, visited first): visit the CTEs last to first.
    for (const c of [...(w.ctes as unknown[])].reverse())
      if (isRecord(c)) query(c.this, w.recursive === true || (cteObserved.get(c.this) ?? false));
  };

  const select = (s: SelectBody, observed: boolean): void => {
    const ordered = s.order_by !== null && s.order_by !== undefined;
    const inputs = readsInputOrder(s) || (!ordered && !isGrouping(s) && observed);
    if (ordered) out.set(s, observed);
    withClause(s, () => {
      const from: unknown[] = isRecord(s.from) && Array.isArray(s.from.expressions) ? s.from.expressions : [];
      const items = [
        ...from,
        ...(Array.isArray(s.joins) ? s.joins.map((j: unknown) => (isRecord(j) ? j.this : undefined)) : []),
      ];
      for (const item of items) source(item, inputs);
      for (const j of Array.isArray(s.joins) ? s.joins : []) if (isRecord(j)) expr(j.on, false);
      expr({ ...s, from: null, joins: null, with: null }, false);
    });
  };

  const source = (item: unknown, observed: boolean): void => {
    const table = bodyOf(item, 'table');
    if (table) return markCte(item, observed);
    const sub = bodyOf(item, 'subquery');
    if (sub) return query(sub.this, observed || sub.lateral === true);
    const joined = bodyOf(item, 'joined_table');
    if (joined) {
      source(joined.left, observed);
      for (const j of Array.isArray(joined.joins) ? joined.joins : [])
        if (isRecord(j)) {
          source(j.this, observed);
          expr(j.on, false);
        }
      return;
    }
    expr(item, true);
  };

  /** Queries inside expressions: membership tests and scalar subqueries do not observe order. */
  const expr = (v: unknown, inUnknownContext: boolean): void => {
    if (Array.isArray(v)) {
      for (const x of v) expr(x, inUnknownContext);
      return;
    }
    if (!isRecord(v)) return;
    const kind = kindOf(v);
    const body = kind === undefined ? undefined : bodyOf(v, kind);
    if (kind !== undefined && body) {
      if (kind === 'select' || kind === 'union' || kind === 'intersect' || kind === 'except')
        return query(v, inUnknownContext);
      if (kind === 'subquery') return query(v, inUnknownContext || body.lateral === true);
      if (kind === 'in') {
        expr({ ...body, query: null }, inUnknownContext);
        if (body.query !== null && body.query !== undefined) query(body.query, false);
        return;
      }
      if (kind === 'exists') return query(body.this, false);
      if (kind === 'any' || kind === 'all') {
        expr(body.this, inUnknownContext);
        return query(body.subquery, false);
      }
      // Function arguments (ARRAY(SELECT …), user functions) may read a query's rows in order.
      const unknown = kind === 'function' || kind === 'array' || kind.endsWith('_agg');
      for (const k in body) if (k !== 'span') expr(body[k], unknown || inUnknownContext);
      return;
    }
    for (const k in v) if (k !== 'span') expr(v[k], inUnknownContext);
  };

  query(tree, true);
  return out;
};
