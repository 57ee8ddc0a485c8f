import { kindOf } from '../../sql/tree.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { hasRowLimit } from '../selects.ts';
import { bodyOf, mapTree } from '../tree-ops.ts';

const withoutOrder = (query: unknown): unknown => {
  const s = bodyOf(query, 'select');
  if (!s || s.order_by === null || s.order_by === undefined || hasRowLimit(s)) return query;
  return { select: { ...s, order_by: null } };
};

/**
 * `subquery-order-by`: drops ORDER BY from a derived table, a CTE body, an IN subquery or a parenthesised subquery that has
 * no LIMIT, OFFSET, FETCH or TOP. The outermost query's ORDER BY is never touched.
 *
 * Why results are kept: a relation has no order; SQL gives no ordering guarantee for the rows of a subquery
 * once another query reads them, so the sort only costs work. With a row limit the ORDER BY picks *which*
 * rows survive, so it stays. (BigQuery `ARRAY(SELECT … ORDER BY …)` is an `array` node, not touched.)
 *
 * @example `SELECT a FROM (SELECT a FROM t ORDER BY a) AS d` → `SELECT a FROM (SELECT a FROM t) AS d`
 */
export const subqueryOrderBy: RewriteRule = {
  name: 'subquery-order-by',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@order_by'],
  apply: (tree) => {
    if (kindOf(tree) === 'subquery') return tree;
    return mapTree(tree, (node, kind) => {
      if (kind === 'subquery') {
        const sub = node.subquery as Record<string, unknown>;
        if (sub.limit !== null && sub.limit !== undefined) return node;
        if (sub.offset !== null && sub.offset !== undefined) return node;
        if (sub.order_by !== null && sub.order_by !== undefined) return node;
        const next = withoutOrder(sub.this);
        return next === sub.this ? node : { subquery: { ...sub, this: next } };
      }
      if (kind === 'in') {
        const body = node.in as Record<string, unknown>;
        const next = withoutOrder(body.query);
        return next === body.query ? node : { in: { ...body, query: next } };
      }
      const w = bodyOf(node, kind)?.with;
      const ctes = bodyOf({ with: w }, 'with')?.ctes;
      if (!Array.isArray(ctes)) return node;
      const nextCtes = ctes.map((c: unknown) => {
        const cte = c as Record<string, unknown>;
        const next = withoutOrder(cte.this);
        return next === cte.this ? c : { ...cte, this: next };
      });
      if (nextCtes.every((c, i) => c === ctes[i])) return node;
      const body = node[kind] as Record<string, unknown>;
      return { [kind]: { ...body, with: { ...(w as object), ctes: nextCtes } } };
    });
  },
};
