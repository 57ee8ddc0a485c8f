import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { respectsGrouping } from '../grouping-equality.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import { SELECT_PUSH_OBLIGATIONS, movable, pushWhere, withWhere } from '../push-filter.ts';
import { clausePredicate, hasWindow, mapSelects, plainGroupKeys, selectItems } from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import { replaceDerived } from '../scopes.ts';
import { exprType, typeEnv } from '../sql-types.ts';
import type { TypeEnv } from '../sql-types.ts';
import { andAll, bodyOf, columnRef, conjuncts, sameNode, someNode } from '../tree-ops.ts';

/** A derived table's SELECT body (no column list: its columns are named by its items). */
const derivedSelect = (src: Source): unknown => {
  const sub = bodyOf(src.node, 'subquery');
  const aliases = sub?.column_aliases;
  if (!sub || (Array.isArray(aliases) && aliases.length > 0)) return undefined;
  return bodyOf(src.query, 'select') ? src.query : undefined;
};

/** One HAVING conjunct that might filter rows before grouping instead of groups after it. */
type HavingSite = { readonly s: SelectBody; readonly pred: unknown; readonly env: TypeEnv };

const keysOf = (s: SelectBody): unknown[] => plainGroupKeys(s) ?? [];

const HAVING_OBLIGATIONS: readonly Obligation<HavingSite>[] = [
  {
    id: 'having-reads-group-keys',
    needs: ['scope', 'determinism'],
    text: 'the HAVING conjunct is deterministic, has no aggregate or subquery, and reads only plain GROUP BY keys (no ROLLUP/CUBE/GROUPING SETS, no select-list alias, no window in the SELECT): it then keeps or drops whole groups',
    holds: ({ s, pred }) => {
      const keys = plainGroupKeys(s);
      if (!keys || hasWindow(s) || !movable(pred)) return false;
      const aliases = new Set(
        selectItems(s)
          .filter((i) => bodyOf(i.item, 'alias'))
          .map((i) => i.name),
      );
      return !someNode(pred, (n, k) => {
        if (k !== 'column') return false;
        const ref = columnRef(n);
        return !ref || aliases.has(ref.name) || !keys.some((g) => sameNode(g, n));
      });
    },
  },
  {
    id: 'having-grouping-equality',
    needs: ['types', 'collation'],
    text: 'the conjunct respects the equality the GROUP BY groups by (grouping-equality.ts): rows of one group may differ (MySQL case and trailing spaces, NUMERIC scale, -0.0), and a finer filter run on rows would split a group that run on the group keeps or drops whole',
    holds: ({ s, pred, env }) =>
      respectsGrouping(pred, {
        isKey: (e) => keysOf(s).some((g) => sameNode(g, e)),
        typeOf: (e) => exprType(e, s, env),
        dialect: env.dialect,
      }),
  },
];

const havingToWhere = (s: SelectBody, env: TypeEnv, ctx: Parameters<RewriteRule['apply']>[1]): SelectBody => {
  const having = clausePredicate(s.having);
  if (having === undefined || !plainGroupKeys(s)) return s;
  const parts = conjuncts(having);
  const moved = parts.filter((pred) =>
    discharge(predicatePushdown.name, HAVING_OBLIGATIONS, { s, pred, env }, ctx),
  );
  if (moved.length === 0) return s;
  const kept = andAll(parts.filter((p) => !moved.includes(p)));
  return {
    ...withWhere(s, moved),
    having: kept === undefined ? null : { ...(s.having as object), this: kept },
  };
};

/**
 * `predicate-pushdown`: moves WHERE conjuncts that read only one derived table (a FROM item or an INNER-joined
 * subquery) into that subquery's WHERE, and HAVING conjuncts that read only GROUP BY keys into WHERE.
 *
 * Why results are kept: filtering commutes with projection, with DISTINCT, and with grouping when the filter
 * reads only group keys *and* cannot tell apart values the grouping treats as equal (it then keeps or drops
 * whole groups); an inner-joined or FROM item's rows that fail the filter would be dropped after the join
 * anyway. Obligations: push-filter.ts (`preserved-side`, `filter-commutes`, `grouping-equality`) for
 * derived tables; `having-reads-group-keys` and `having-grouping-equality` for HAVING.
 * So it never crosses LIMIT/OFFSET/FETCH, a window function or QUALIFY, DISTINCT ON, ROLLUP/CUBE, an
 * aggregate without GROUP BY, the null-supplying side of an outer join, a RIGHT or FULL JOIN, never moves a
 * volatile expression (random(), now()) or a subquery, and through a grouping moves only comparisons of keys
 * with constants unless the key's equal values are identical (integers, dates; not MySQL strings, floats,
 * PostgreSQL's bare NUMERIC).
 *
 * @example `SELECT k FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k) AS d WHERE d.k = 1` → `SELECT k FROM (SELECT k, SUM(v) AS s FROM t WHERE k = 1 GROUP BY k) AS d`
 */
export const predicatePushdown: RewriteRule = {
  name: 'predicate-pushdown',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['subquery', '@having'],
  obligations: [...SELECT_PUSH_OBLIGATIONS, ...HAVING_OBLIGATIONS],
  apply: (tree, ctx) => {
    const env = typeEnv(tree, ctx.catalog, ctx.dialect);
    const proof = { rule: 'predicate-pushdown', ctx, env, obligations: SELECT_PUSH_OBLIGATIONS };
    return mapSelects(tree, (s) =>
      havingToWhere(pushWhere(s, derivedSelect, replaceDerived, proof), env, ctx),
    );
  },
};
