import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { filterUnionAll, pushWhere } from '../push-filter.ts';
import { mapSelects } from '../selects.ts';
import type { Source } from '../selects.ts';
import { replaceDerived } from '../scopes.ts';
import { bodyOf } from '../tree-ops.ts';

/** A derived table whose body is a UNION ALL (no column list: the union's names are the first branch's). */
const unionBody = (src: Source): unknown => {
  const sub = bodyOf(src.node, 'subquery');
  const aliases = sub?.column_aliases;
  if (!sub || (Array.isArray(aliases) && aliases.length > 0)) return undefined;
  return bodyOf(src.query, 'union') ? src.query : undefined;
};

/**
 * `union-predicate-pushdown`: moves a WHERE conjunct that reads only a derived table whose body is a
 * UNION ALL into every branch, mapping each output column by position to the branch's select item.
 *
 * Why results are kept: UNION ALL concatenates its branches, so filtering the concatenation equals
 * concatenating the filtered branches, row for row. Only comparisons of columns with constants move (a
 * branch may have another column type than the union's coerced one; a comparison with a constant does not
 * depend on it, arithmetic could); every branch must accept the filter (no LIMIT, window, DISTINCT ON,
 * aggregate without GROUP BY, non-key column of a GROUP BY), else nothing moves. UNION DISTINCT, INTERSECT,
 * EXCEPT, a union with its own ORDER BY/LIMIT, and the null-supplying side of an outer join are left alone.
 *
 * @example `SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d WHERE d.k = 1` → `SELECT k FROM (SELECT a AS k FROM t WHERE a = 1 UNION ALL SELECT b FROM u WHERE b = 1) AS d`
 */
export const unionPredicatePushdown: RewriteRule = {
  name: 'union-predicate-pushdown',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['union'],
  apply: (tree) => mapSelects(tree, (s) => pushWhere(s, unionBody, filterUnionAll, replaceDerived)),
};
