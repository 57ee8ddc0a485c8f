import { isRecord } from '../sql/tree.ts';
import type { SqlNode } from '../sql/tree.ts';
import { respectsGrouping } from './grouping-equality.ts';
import type { Obligation } from './obligations.ts';
import { discharge } from './obligations.ts';
import type { RuleContext } from './rule.ts';
import {
  clausePredicate,
  hasAggregate,
  hasGroupAggregate,
  hasRowLimit,
  isVolatileOrOpaque,
  plainGroupKeys,
  selectItems,
  sourcesOf,
} from './selects.ts';
import type { SelectBody, Source } from './selects.ts';
import { exprType, outputTypes, sameType } from './sql-types.ts';
import type { TypeEnv } from './sql-types.ts';
import { andAll, bodyOf, columnRef, conjuncts, mapTree, sameNode, someNode } from './tree-ops.ts';

/**
 * Moving a WHERE conjunct of an outer SELECT into the query that produces one of its sources (a derived
 * table's body, a CTE's body, each branch of a UNION ALL). Shared by the pushdown rules: the rules decide
 * which sources qualify; this module states the obligations every move must discharge (PUSH_OBLIGATIONS) and
 * rewrites the conjunct into the inner scope.
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
  // Window functions of the select list are judged by `window-partition-keys`; QUALIFY and named windows
  // (WINDOW w AS …) are not modelled.
  if (hasRowLimit(inner) || clausePredicate(inner.qualify) !== undefined) return false;
  if (inner.windows !== null && inner.windows !== undefined) return false;
  if (inner.distinct_on !== null && inner.distinct_on !== undefined) return false;
  const grouped = inner.group_by !== null && inner.group_by !== undefined;
  return plainGroupKeys(inner) !== undefined || (!grouped && !hasGroupAggregate(inner.expressions));
};

/**
 * The PARTITION BY list of every window function of `inner`'s select list (none: an empty list), or
 * undefined when one has no PARTITION BY, names a window, or sits where we do not look (ORDER BY).
 */
export const windowPartitions = (inner: SelectBody): unknown[][] | undefined => {
  const out: unknown[][] = [];
  let ok = !someNode(
    [inner.order_by, inner.distinct_on],
    (_n, k) => k === 'window_function',
    (_n, k) => k !== 'subquery',
  );
  someNode(
    inner.expressions,
    (n, k) => {
      if (k !== 'window_function') return false;
      const over = bodyOf(n, 'window_function')?.over;
      const parts = isRecord(over) ? over.partition_by : undefined;
      const named = isRecord(over) && over.window_name !== null && over.window_name !== undefined;
      if (!Array.isArray(parts) || parts.length === 0 || named) ok = false;
      else out.push(parts);
      return false;
    },
    (_n, k) => k !== 'subquery',
  );
  return ok ? out : undefined;
};

/**
 * Whether `moved` (in the inner scope) reads only expressions of every PARTITION BY list of `inner`, and
 * respects their equality (a partition holds values that compare equal, as a group does): it then keeps or
 * drops whole partitions, and every window function sees the same rows in the partitions that stay.
 */
const readsOnlyPartitionKeys = (moved: unknown, inner: SelectBody, env: TypeEnv): boolean => {
  const lists = windowPartitions(inner);
  if (lists === undefined) return false;
  return lists.every((keys) => {
    const isKey = (e: unknown): boolean => {
      const x = bodyOf(e, 'paren')?.this ?? e;
      return keys.some((g) => sameNode(g, x) || sameNode(g, e));
    };
    const outside = someNode(
      moved,
      (n, k) => !isKey(n) && k === 'column',
      (n) => !isKey(n),
    );
    const typeOf = (e: unknown): ReturnType<typeof exprType> =>
      exprType(bodyOf(e, 'paren')?.this ?? e, inner, env);
    return !outside && respectsGrouping(moved, { isKey, typeOf, dialect: env.dialect });
  });
};

/** Whether a column reference may denote an output column of the source (qualified by it, or sole source). */
export type RefFilter = (ref: { name: string; table: string | undefined }) => boolean;

/** Output column named by `ref` → the inner expression (by name, or by position for union branches). */
type OutputAt = (ref: { name: string; table: string | undefined }) => unknown;

/**
 * `pred` with each column that `outputAt` resolves replaced by the inner expression it names, or undefined
 * when a column is not an output of `inner`, or names a volatile, aggregate or (when grouped) non-key value.
 */
const substitute = (pred: unknown, inner: SelectBody, outputAt: OutputAt): unknown => {
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

/**
 * The equality `inner` groups rows by, when it groups (GROUP BY keys, or all items under plain DISTINCT):
 * the moved filter must respect it (grouping-equality.ts).
 */
const groupingKeys = (inner: SelectBody): unknown[] | undefined => {
  const keys = plainGroupKeys(inner);
  if (keys) return keys;
  return inner.distinct === true ? selectItems(inner).map((i) => i.expr) : undefined;
};

const respectsInnerGrouping = (moved: unknown, inner: SelectBody, env: TypeEnv): boolean => {
  const keys = groupingKeys(inner);
  if (!keys) return true;
  const isKey = (e: unknown): boolean => {
    const x = bodyOf(e, 'paren')?.this ?? e;
    return keys.some((g) => sameNode(g, x) || sameNode(g, e));
  };
  const typeOf = (e: unknown): ReturnType<typeof exprType> =>
    exprType(bodyOf(e, 'paren')?.this ?? e, inner, env);
  return respectsGrouping(moved, { isKey, typeOf, dialect: env.dialect });
};

const byName =
  (items: ReturnType<typeof selectItems>, mine: RefFilter): OutputAt =>
  (ref) => {
    if (!mine(ref)) return undefined;
    const found = items.filter((i) => i.name === ref.name);
    return found.length === 1 ? found[0]?.expr : undefined;
  };

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

/** One move: conjunct `pred` of the outer WHERE into `query`, the body producing source `mine` names. */
export type PushSite = {
  readonly pred: unknown;
  readonly query: unknown;
  readonly mine: RefFilter;
  /** The join kind the source is read through (`From` for FROM items). */
  readonly joinKind: string;
  /** Every join kind of the outer SELECT. */
  readonly joinKinds: readonly string[];
  readonly env: TypeEnv;
};

/** The inner SELECTs a move writes into, each with the conjunct in its scope (or undefined there). */
const targets = (site: PushSite): Array<{ inner: SelectBody; moved: unknown }> | undefined => {
  if (bodyOf(site.query, 'select')) {
    const inner = bodyOf(site.query, 'select') as SelectBody;
    return [{ inner, moved: substitute(site.pred, inner, byName(selectItems(inner), site.mine)) }];
  }
  const branches = unionAllBranches(site.query);
  if (!branches) return undefined;
  const selects = branches.map((b) => bodyOf(b, 'select') as SelectBody);
  const first = selectItems(selects[0] ?? {});
  if (first.some((i) => i.name === undefined)) return undefined;
  return selects.map((inner) => {
    const items = selectItems(inner);
    const moved =
      items.length !== first.length
        ? undefined
        : substitute(site.pred, inner, (ref) => {
            if (!site.mine(ref)) return undefined;
            const pos = first.findIndex((i) => i.name === ref.name);
            const unique = first.filter((i) => i.name === ref.name).length === 1;
            return pos >= 0 && unique ? items[pos]?.expr : undefined;
          });
    return { inner, moved };
  });
};

const SIMPLE = new Set([
  'column',
  'literal',
  'null',
  'boolean',
  'paren',
  'and',
  'or',
  'not',
  'in',
  'between',
]);
const SIMPLE_TESTS = new Set(['is_null', 'is_true', 'is_false', 'eq', 'neq', 'lt', 'lte', 'gt', 'gte']);

/**
 * Comparisons of columns with constants (and AND/OR/NOT/IN/BETWEEN/IS NULL of such): the only filters that
 * may land on a branch's untyped NULL, where a function (`EXTRACT(YEAR FROM NULL)`) cannot be resolved.
 */
const comparesOnly = (pred: unknown): boolean =>
  !someNode(
    pred,
    (_n, k) => !SIMPLE.has(k) && !SIMPLE_TESTS.has(k) && k !== 'null_safe_eq' && k !== 'null_safe_neq',
  );

/** Positions of the union's output columns that `pred` reads. */
const positionsRead = (site: PushSite, first: ReturnType<typeof selectItems>): number[] | undefined => {
  const out: number[] = [];
  let ok = true;
  someNode(site.pred, (n, k) => {
    const ref = k === 'column' ? columnRef(n) : undefined;
    if (!ref) return false;
    const pos = first.findIndex((i) => i.name === ref.name);
    if (!site.mine(ref) || pos < 0) ok = false;
    else out.push(pos);
    return false;
  });
  return ok ? out : undefined;
};

/** The obligations every move of a WHERE conjunct into a body that may be a UNION ALL discharges. */
export const PUSH_OBLIGATIONS: readonly Obligation<PushSite>[] = [
  {
    id: 'preserved-side',
    needs: ['nulls'],
    text: 'the source is a FROM item or inner-joined, never on the null-supplying side of an outer join, and the SELECT has no RIGHT or FULL join (a filter moved there would drop rows the outer join pads with NULLs instead)',
    holds: (site) =>
      site.joinKind !== 'Left' && site.joinKinds.every((k) => ['Inner', 'Left', 'Cross'].includes(k)),
  },
  {
    id: 'filter-commutes',
    needs: ['determinism', 'order'],
    text: 'the conjunct is deterministic, has no subquery or aggregate, reads only output columns of the source (group keys when it groups), and the body has no LIMIT/OFFSET/FETCH, QUALIFY, named WINDOW, DISTINCT ON or aggregate without GROUP BY (filtering commutes with projection, grouping on its keys, and UNION ALL)',
    holds: (site) => {
      const ts = targets(site);
      return (
        movable(site.pred) &&
        ts !== undefined &&
        ts.every((x) => filterable(x.inner) && x.moved !== undefined)
      );
    },
  },
  {
    id: 'window-partition-keys',
    needs: ['scope', 'types', 'collation'],
    text: 'when the body computes window functions, the conjunct reads only expressions that are in the PARTITION BY of every one of them (none without PARTITION BY, no named window) and respects the partitioning equality (grouping-equality.ts): it keeps or drops whole partitions, so no window function sees other rows',
    holds: (site) =>
      targets(site)?.every(
        (x) =>
          x.moved !== undefined &&
          (windowPartitions(x.inner)?.length === 0 || readsOnlyPartitionKeys(x.moved, x.inner, site.env)),
      ) ?? false,
  },
  {
    id: 'branch-types-equal',
    needs: ['types', 'collation'],
    text: "in a UNION ALL body, each column the conjunct reads has one and the same known type (parameters and collation included) in every branch, so no branch's values are coerced before the filter sees them (a NULL literal branch takes any type, for a conjunct that only compares: a function of an untyped NULL may not resolve)",
    holds: (site, ctx) => {
      const branches = bodyOf(site.query, 'union') ? unionAllBranches(site.query) : undefined;
      if (!branches) return true;
      const first = selectItems(bodyOf(branches[0], 'select') ?? {});
      const read = positionsRead(site, first);
      const types = branches.map((b) => outputTypes(b, site.env));
      if (!read || types.some((t) => t === undefined)) return false;
      return read.every((pos) => {
        const col = types.map((t) => t?.[pos]);
        const real = col.filter((t) => t?.family !== 'null');
        const base = real[0];
        return (
          col.every((t) => t !== undefined) &&
          base !== undefined &&
          real.every((t) => t !== undefined && sameType(t, base, ctx.dialect)) &&
          (real.length === col.length || comparesOnly(site.pred))
        );
      });
    },
  },
  {
    id: 'grouping-equality',
    needs: ['types', 'collation'],
    text: 'through GROUP BY or DISTINCT, the conjunct respects the equality rows are grouped by (grouping-equality.ts: comparisons of a key with constants of its type, or any expression of keys whose equal values are identical)',
    holds: (site) => targets(site)?.every((x) => respectsInnerGrouping(x.moved, x.inner, site.env)) ?? false,
  },
];
/** The same for a body that is one SELECT (a derived table): no branches whose types could differ. */
export const SELECT_PUSH_OBLIGATIONS: readonly Obligation<PushSite>[] = PUSH_OBLIGATIONS.filter(
  (o) => o.id !== 'branch-types-equal',
);

/** The body with the site's conjunct moved in (its obligations already discharged). */
const applyPush = (site: PushSite): unknown => {
  const ts = targets(site) ?? [];
  const next = ts.map((x) => ({ select: withWhere(x.inner, [x.moved]) }));
  return bodyOf(site.query, 'select') ? next[0] : replaceBranches(site.query, next);
};

/**
 * Splits the WHERE of `s` among its sources: for each source that `target` accepts (returns its body), the
 * conjuncts whose move discharges `proof.obligations` (default PUSH_OBLIGATIONS) move there; `put` writes
 * the new body back.
 */
export const pushWhere = (
  s: SelectBody,
  target: (src: Source) => unknown,
  put: (s: SelectBody, src: Source, query: unknown) => SelectBody,
  proof: { rule: string; ctx: RuleContext; env: TypeEnv; obligations?: readonly Obligation<PushSite>[] },
): SelectBody => {
  const where = clausePredicate(s.where_clause);
  const sources = where === undefined ? undefined : sourcesOf(s);
  if (where === undefined || !sources) return s;
  const joins = Array.isArray(s.joins) ? s.joins : [];
  const joinKinds = joins.map((j) => (isRecord(j) ? String(j.kind) : '?'));
  let rest = conjuncts(where);
  let next = s;
  for (const src of sources) {
    let query = target(src);
    if (query === undefined) continue;
    const mine: RefFilter = (ref) =>
      ref.table === src.alias || (sources.length === 1 && ref.table === undefined);
    const joinKind = src.joinIndex < 0 ? 'From' : (joinKinds[src.joinIndex] ?? '?');
    const before = query;
    rest = rest.filter((pred) => {
      const site: PushSite = { pred, query, mine, joinKind, joinKinds, env: proof.env };
      if (!discharge(proof.rule, proof.obligations ?? PUSH_OBLIGATIONS, site, proof.ctx)) return true;
      query = applyPush(site);
      return false;
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
