import { isRecord } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import {
  clausePredicate,
  hasAggregate,
  hasRowLimit,
  hasWindow,
  isVolatileOrOpaque,
  mapSelects,
  plainGroupKeys,
  selectItems,
  sourcesOf,
} from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import { replaceDerived } from '../scopes.ts';
import { andAll, bodyOf, columnRef, conjuncts, mapTree, sameNode, someNode } from '../tree-ops.ts';

const movable = (pred: unknown): boolean =>
  !isVolatileOrOpaque(pred) && !hasAggregate(pred) && someNode(pred, (_n, k) => k === 'column');

const withWhere = (s: SelectBody, preds: unknown[]): SelectBody => {
  const all = andAll([
    ...conjuncts(clausePredicate(s.where_clause) ?? []).filter((p) => !Array.isArray(p)),
    ...preds,
  ]);
  return {
    ...s,
    where_clause:
      all === undefined ? null : { ...(isRecord(s.where_clause) ? s.where_clause : {}), this: all },
  };
};

/** The conjunct rewritten into the derived table's scope, or undefined when it cannot be moved there. */
const intoDerived = (pred: unknown, src: Source, sole: boolean): unknown => {
  const inner = bodyOf(src.query, 'select');
  if (!inner || hasRowLimit(inner) || hasWindow(inner) || !movable(pred)) return undefined;
  if (inner.distinct_on !== null && inner.distinct_on !== undefined) return undefined;
  const keys = plainGroupKeys(inner);
  if (!keys && ((inner.group_by !== null && inner.group_by !== undefined) || hasAggregate(inner.expressions)))
    return undefined;
  const items = selectItems(inner);
  let ok = true;
  const moved = mapTree(pred, (n, k) => {
    if (k !== 'column') return n;
    const ref = columnRef(n);
    if (!ref || (ref.table !== src.alias && !(sole && ref.table === undefined))) return ((ok = false), n);
    const found = items.filter((i) => i.name === ref.name);
    const expr = found.length === 1 ? found[0]?.expr : undefined;
    if (expr === undefined || isVolatileOrOpaque(expr) || hasAggregate(expr)) return ((ok = false), n);
    if (keys && !keys.some((g) => sameNode(g, expr))) return ((ok = false), n);
    return (columnRef(expr) || bodyOf(expr, 'literal') ? expr : { paren: { this: expr } }) as SqlNode;
  });
  return ok ? moved : undefined;
};

const pushIntoDerived = (s: SelectBody): SelectBody => {
  const where = clausePredicate(s.where_clause);
  const sources = sourcesOf(s);
  const joins = Array.isArray(s.joins) ? s.joins : [];
  if (where === undefined || !sources || !sources.some((x) => x.query !== undefined)) return s;
  if (joins.some((j) => !isRecord(j) || !['Inner', 'Left', 'Cross'].includes(String(j.kind)))) return s;
  let rest = conjuncts(where);
  let next = s;
  for (const src of sources) {
    const joinKind =
      src.joinIndex < 0 ? 'From' : String((joins[src.joinIndex] as Record<string, unknown>).kind);
    if (src.query === undefined || joinKind === 'Left') continue;
    const moved: unknown[] = [];
    rest = rest.filter((p) => {
      const m = intoDerived(p, src, sources.length === 1);
      if (m !== undefined) moved.push(m);
      return m === undefined;
    });
    if (moved.length === 0) continue;
    const inner = withWhere(bodyOf(src.query, 'select') as SelectBody, moved);
    next = replaceDerived(next, src, { select: inner });
  }
  if (next === s) return s;
  const remaining = andAll(rest);
  return {
    ...next,
    where_clause: remaining === undefined ? null : { ...(s.where_clause as object), this: remaining },
  };
};

/** HAVING conjuncts that read only group keys filter whole groups: they can filter rows before grouping. */
const havingToWhere = (s: SelectBody): SelectBody => {
  const having = clausePredicate(s.having);
  const keys = plainGroupKeys(s);
  if (having === undefined || !keys || hasWindow(s)) return s;
  const aliases = new Set(
    selectItems(s)
      .filter((i) => bodyOf(i.item, 'alias'))
      .map((i) => i.name),
  );
  const onKeys = (p: unknown): boolean =>
    movable(p) &&
    !someNode(p, (n, k) => {
      if (k !== 'column') return false;
      const ref = columnRef(n);
      return !ref || aliases.has(ref.name) || !keys.some((g) => sameNode(g, n));
    });
  const parts = conjuncts(having);
  const moved = parts.filter(onKeys);
  if (moved.length === 0) return s;
  const kept = andAll(parts.filter((p) => !onKeys(p)));
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
 * reads only group keys (it keeps or drops whole groups); an inner-joined or FROM item's rows that fail the
 * filter would be dropped after the join anyway. It never crosses LIMIT/OFFSET/FETCH, a window function or
 * QUALIFY, DISTINCT ON, ROLLUP/CUBE, an aggregate without GROUP BY, the null-supplying side of an outer join,
 * a RIGHT or FULL JOIN, and never moves a volatile expression (random(), now()) or a subquery.
 *
 * @example `SELECT k FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k) AS d WHERE d.k = 1` → `SELECT k FROM (SELECT k, SUM(v) AS s FROM t WHERE k = 1 GROUP BY k) AS d`
 */
export const predicatePushdown: RewriteRule = {
  name: 'predicate-pushdown',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['subquery', '@having'],
  apply: (tree) => mapSelects(tree, (s) => havingToWhere(pushIntoDerived(s))),
};
