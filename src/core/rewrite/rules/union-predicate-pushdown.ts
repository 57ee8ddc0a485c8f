import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { PUSH_OBLIGATIONS, pushWhere } from '../push-filter.ts';
import { mapSelects } from '../selects.ts';
import type { Source } from '../selects.ts';
import { replaceDerived } from '../scopes.ts';
import { typeEnv } from '../sql-types.ts';
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
 * concatenating the filtered branches, row for row — provided each branch's value is the value the filter
 * would have seen. A branch whose column type differs from the union's result type is coerced first (a DATE
 * branch of a DATE/TIMESTAMP union, INTEGER of an INTEGER/VARCHAR union on DuckDB, CHAR(n) of a CHAR/TEXT
 * union on PostgreSQL, another collation on MySQL), and a constant compared before the coercion can give
 * another answer. So the obligation `branch-types-equal` asks the catalog for the type of every column the
 * conjunct reads in every branch (sql-types.ts) and moves it only when they are one and the same type; an
 * unknown type moves nothing. Every branch must also accept the filter (push-filter.ts obligations: no LIMIT,
 * window, DISTINCT ON, aggregate without GROUP BY, non-key column of a GROUP BY, grouping equality), else
 * nothing moves. UNION DISTINCT, INTERSECT, EXCEPT, a union with its own ORDER BY/LIMIT, a column list, and
 * the null-supplying side of an outer join are left alone.
 *
 * @example `SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d WHERE d.k = 1` → `SELECT k FROM (SELECT a AS k FROM t WHERE a = 1 UNION ALL SELECT b FROM u WHERE b = 1) AS d` (a and b both INTEGER)
 */
export const unionPredicatePushdown: RewriteRule = {
  name: 'union-predicate-pushdown',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['union'],
  obligations: PUSH_OBLIGATIONS,
  apply: (tree, ctx) => {
    const proof = { rule: 'union-predicate-pushdown', ctx, env: typeEnv(tree, ctx.catalog, ctx.dialect) };
    return mapSelects(tree, (s) => pushWhere(s, unionBody, replaceDerived, proof));
  },
};
