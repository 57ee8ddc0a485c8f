import { isRecord } from '../sql/tree.ts';
import type { SqlNode } from '../sql/tree.ts';
import {
  clausePredicate,
  hasAggregate,
  hasRowLimit,
  hasWindow,
  isVolatileOrOpaque,
  plainGroupKeys,
  selectItems,
  sourcesOf,
} from './selects.ts';
import type { SelectBody, Source } from './selects.ts';
import { andAll, bodyOf, columnRef, conjuncts, mapTree, sameNode, someNode } from './tree-ops.ts';

/**
 * Moving a WHERE conjunct of an outer SELECT into the query that produces one of its sources (a derived
 * table's body, a CTE's body, each branch of a UNION ALL). Shared by the pushdown rules; the rules decide
 * which sources qualify, this module decides which conjuncts may cross and rewrites them into the inner scope.
 */

/** A deterministic, aggregate-free filter that reads at least one column: the only kind that may move. */
export const movable = (pred: unknown): boolean =>
  !isVolatileOrOpaque(pred) && !hasAggregate(pred) && someNode(pred, (_n, k) => k === 'column');

/** `s` with `preds` ANDed to its WHERE. */
export const withWhere = (s: SelectBody, preds: unknown[]): SelectBody => {
  const existing = clausePredicate(s.where_clause);
  const all = andAll([...(existing === undefined ? [] : conjuncts(existing)), ...preds]);
  return {
    ...s,
    where_clause:
      all === undefined ? null : { ...(isRecord(s.where_clause) ? s.where_clause : {}), this: all },
  };
};

/** Whether a filter on the output of `inner` may be applied to its input rows instead. */
const filterable = (inner: SelectBody): boolean => {
  if (hasRowLimit(inner) || hasWindow(inner)) return false;
  if (inner.distinct_on !== null && inner.distinct_on !== undefined) return false;
  const grouped = inner.group_by !== null && inner.group_by !== undefined;
  return plainGroupKeys(inner) !== undefined || (!grouped && !hasAggregate(inner.expressions));
};

/**
 * `pred` with each column that `outputAt` resolves replaced by the inner expression it names, or undefined
 * when a column is not an output of `inner`, or names a volatile, aggregate or (when grouped) non-key value.
 */
const substitute = (
  pred: unknown,
  inner: SelectBody,
  outputAt: (ref: { name: string; table: string | undefined }) => unknown,
): unknown => {
  const keys = plainGroupKeys(inner);
  let ok = true;
  const moved = mapTree(pred, (n, k) => {
    if (k !== 'column') return n;
    const ref = columnRef(n);
    const expr = ref ? outputAt(ref) : undefined;
    if (expr === undefined || isVolatileOrOpaque(expr) || hasAggregate(expr)) return ((ok = false), n);
    if (keys && !keys.some((g) => sameNode(g, expr))) return ((ok = false), n);
    return (columnRef(expr) || bodyOf(expr, 'literal') ? expr : { paren: { this: expr } }) as SqlNode;
  });
  return ok ? moved : undefined;
};

/** Whether a column reference may denote an output column of the source (qualified by it, or sole source). */
export type RefFilter = (ref: { name: string; table: string | undefined }) => boolean;

const byName =
  (items: ReturnType<typeof selectItems>, mine: RefFilter) =>
  (ref: { name: string; table: string | undefined }): unknown => {
    if (!mine(ref)) return undefined;
    const found = items.filter((i) => i.name === ref.name);
    return found.length === 1 ? found[0]?.expr : undefined;
  };

/** A SELECT body with `pred` (outer scope) added to its WHERE, or undefined when it cannot cross. */
export const filterSelect = (query: unknown, pred: unknown, mine: RefFilter): unknown => {
  const inner = bodyOf(query, 'select');
  if (!inner || !filterable(inner) || !movable(pred)) return undefined;
  const moved = substitute(pred, inner, byName(selectItems(inner), mine));
  return moved === undefined ? undefined : { select: withWhere(inner, [moved]) };
};

const SIMPLE_COMPARISONS = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'like', 'ilike']);

/**
 * Comparisons of columns with constants (and AND/OR/NOT/IN/BETWEEN/IS NULL of such). Set-operation branches
 * may have other column types than the union's (coerced) output; a comparison with a constant gives the same
 * answer before and after coercion, where arithmetic (`x / 2` on int vs numeric) may not.
 */
const simpleFilter = (pred: unknown): boolean =>
  !someNode(pred, (_n, k) => {
    if (k === 'column' || k === 'literal' || k === 'null' || k === 'boolean' || k === 'paren') return false;
    if (k === 'and' || k === 'or' || k === 'not' || k === 'in' || k === 'between' || k === 'is_null')
      return false;
    if (k === 'is_true' || k === 'is_false') return false;
    return !SIMPLE_COMPARISONS.has(k);
  });

/** The branches of a tree of UNION ALLs, or undefined when a node is anything else or orders/limits. */
const unionAllBranches = (query: unknown): unknown[] | undefined => {
  const u = bodyOf(query, 'union');
  if (!u) return bodyOf(query, 'select') ? [query] : undefined;
  if (u.all !== true || u.by_name === true || u.corresponding === true) return undefined;
  if ([u.order_by, u.limit, u.offset, u.with].some((x) => x !== null && x !== undefined)) return undefined;
  const left = unionAllBranches(u.left);
  const right = unionAllBranches(u.right);
  return left && right ? [...left, ...right] : undefined;
};

/** Rebuilds a UNION ALL tree with its branches replaced in order. */
const replaceBranches = (query: unknown, next: unknown[]): unknown => {
  const u = bodyOf(query, 'union');
  if (!u) return next.shift();
  const left = replaceBranches(u.left, next);
  const right = replaceBranches(u.right, next);
  return { union: { ...u, left, right } };
};

/**
 * A UNION ALL with `pred` added to every branch, each column mapped by position to the branch's item (the
 * union names its columns after the first branch), or undefined when any branch refuses.
 */
export const filterUnionAll = (query: unknown, pred: unknown, mine: RefFilter): unknown => {
  const branches = bodyOf(query, 'union') ? unionAllBranches(query) : undefined;
  if (!branches || !movable(pred) || !simpleFilter(pred)) return undefined;
  const selects = branches.map((b) => bodyOf(b, 'select') as SelectBody);
  const first = selectItems(selects[0] ?? {});
  const width = first.length;
  if (first.some((i) => i.name === undefined) || selects.some((s) => selectItems(s).length !== width))
    return undefined;
  const next: unknown[] = [];
  for (const s of selects) {
    if (!filterable(s)) return undefined;
    const items = selectItems(s);
    const moved = substitute(pred, s, (ref) => {
      if (!mine(ref)) return undefined;
      const pos = first.findIndex((i) => i.name === ref.name);
      return pos >= 0 && first.filter((i) => i.name === ref.name).length === 1 ? items[pos]?.expr : undefined;
    });
    if (moved === undefined) return undefined;
    next.push({ select: withWhere(s, [moved]) });
  }
  return replaceBranches(query, next);
};

/** Join kinds whose FROM-side and inner-joined items see only rows the WHERE would keep anyway. */
const SAFE_JOINS = ['Inner', 'Left', 'Cross'];

/**
 * Splits the WHERE of `s` among its sources: for each source that `target` accepts (returns its query),
 * the conjuncts `filter` can move into that query move there; `put` writes the new query back.
 * Sources on the null-supplying side of a LEFT JOIN never receive a filter (it would turn a NULL-extended
 * row into a dropped one: the WHERE sees NULLs, the inner query would not).
 */
export const pushWhere = (
  s: SelectBody,
  target: (src: Source) => unknown,
  filter: (query: unknown, pred: unknown, mine: RefFilter) => unknown,
  put: (s: SelectBody, src: Source, query: unknown) => SelectBody,
): SelectBody => {
  const where = clausePredicate(s.where_clause);
  const sources = where === undefined ? undefined : sourcesOf(s);
  if (where === undefined || !sources) return s;
  const joins = Array.isArray(s.joins) ? s.joins : [];
  if (joins.some((j) => !isRecord(j) || !SAFE_JOINS.includes(String(j.kind)))) return s;
  let rest = conjuncts(where);
  let next = s;
  for (const src of sources) {
    const join: unknown = src.joinIndex < 0 ? undefined : joins[src.joinIndex];
    if (isRecord(join) && join.kind === 'Left') continue;
    let query = target(src);
    if (query === undefined) continue;
    const mine: RefFilter = (ref) =>
      ref.table === src.alias || (sources.length === 1 && ref.table === undefined);
    const before = query;
    rest = rest.filter((p) => {
      const moved = filter(query, p, mine);
      if (moved !== undefined) query = moved;
      return moved === undefined;
    });
    if (query !== before) next = put(next, src, query);
  }
  if (next === s) return s;
  const remaining = andAll(rest);
  return {
    ...next,
    where_clause: remaining === undefined ? null : { ...(s.where_clause as object), this: remaining },
  };
};
