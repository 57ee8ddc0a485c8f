import { isRecord, kindOf } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import {
  clausePredicate,
  hasAggregate,
  isEmptyClause,
  isVolatileOrOpaque,
  mapSelects,
  onlyFromAndWhere,
  plainGroupKeys,
  sourcesOf,
} from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import { exprType, sameType, sourceColumns, typeEnv } from '../sql-types.ts';
import type { SqlType, TypeEnv } from '../sql-types.ts';
import {
  andAll,
  binary,
  bodyOf,
  derivedTable,
  columnRef,
  conjuncts,
  mapTree,
  someNode,
} from '../tree-ops.ts';

type Ref = { name: string; table: string | undefined };

/** One correlation conjunct `inner = outer` of the subquery's WHERE. */
type Pair = { readonly inner: unknown; readonly outer: unknown };

/** A correlated scalar subquery in the select list or WHERE of `s`. */
type Site = {
  /** The SELECT the subquery sits in. */
  readonly s: SelectBody;
  /** The subquery's SELECT. */
  readonly inner: SelectBody;
  readonly position: 'select' | 'where';
  /** For a select-list site: whether the item holding it has an alias. */
  readonly aliased: boolean;
  readonly env: TypeEnv;
  /** Filled by the obligations as they are shown. */
  analysis?: Analysis;
};

type Analysis = {
  /** The aggregate call of the one output, and the output expression around it. */
  readonly agg: SqlNode;
  readonly output: unknown;
  readonly pairs: Pair[];
  /** The WHERE conjuncts that read no outer column. */
  readonly local: unknown[];
};

const EMPTY = isEmptyClause;

const AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max']);

const unaliased = (item: unknown): unknown => bodyOf(item, 'alias')?.this ?? item;

const unparen = (v: unknown): unknown => {
  let cur = v;
  for (let p = bodyOf(cur, 'paren'); p; p = bodyOf(cur, 'paren')) cur = p.this;
  return cur;
};

/** Whether `ref` names a column of one of `sources` (undefined: a source's columns are unknown). */
const ownedBy = (ref: Ref, sources: readonly Source[], env: TypeEnv): boolean | undefined => {
  if (ref.table !== undefined) return sources.some((x) => x.alias === ref.table);
  for (const src of sources) {
    const cols = sourceColumns(src, env);
    if (!cols) return undefined;
    if (cols.has(ref.name)) return true;
  }
  return false;
};

/** Whether `ref` resolves to exactly one source of `sources` (qualified by a unique alias, or owned once). */
const ownedOnce = (ref: Ref, sources: readonly Source[], env: TypeEnv): boolean => {
  if (ref.table !== undefined) return sources.filter((x) => x.alias === ref.table).length === 1;
  let owners = 0;
  for (const src of sources) {
    const cols = sourceColumns(src, env);
    if (!cols) return false;
    if (cols.has(ref.name)) owners++;
  }
  return owners === 1;
};

/** The one aggregate call (COUNT / SUM / AVG / MIN / MAX) of the output, when the output is built around one. */
const singleAggregate = (output: unknown): SqlNode | undefined => {
  const found: SqlNode[] = [];
  someNode(output, (n, k) => {
    if (AGGREGATES.has(k)) found.push(n);
    return false;
  });
  const [agg] = found;
  if (found.length !== 1 || !agg) return undefined;
  const kind = kindOf(agg) as string;
  const b = agg[kind] as Record<string, unknown>;
  // No aggregate or window inside the call, no ordered aggregate.
  if (hasAggregate(b.this) || !EMPTY(b.order_by) || someNode(b, (_n, k) => k === 'window_function'))
    return undefined;
  // Around the call: constants and operators only (no column, no other aggregate, nothing volatile).
  const rest = mapTree(output, (n) => (n === agg ? { null: null } : n));
  if (someNode(rest, (_n, k) => k === 'column' || k === 'star') || hasAggregate(rest)) return undefined;
  if (isVolatileOrOpaque(rest) || someNode(rest, (_n, k) => k === 'window_function')) return undefined;
  return agg;
};

const isCount = (agg: SqlNode): boolean => kindOf(agg) === 'count';

/** Every column reference in the subquery (it holds no nested query: the obligations check that first). */
const columnsIn = (v: unknown): Ref[] => {
  const out: Ref[] = [];
  someNode(v, (n) => {
    const r = columnRef(n);
    if (r) out.push(r);
    return false;
  });
  return out;
};

const analyse = (site: Site): Analysis | undefined => {
  const { inner, s, env } = site;
  const innerSources = sourcesOf(inner);
  const outerSources = sourcesOf(s);
  if (!innerSources || !outerSources || innerSources.some((x) => x.table === undefined)) return undefined;
  const output = unaliased((inner.expressions as unknown[])[0]);
  const agg = singleAggregate(output);
  if (!agg) return undefined;
  // A column of the subquery's own sources, or of the outer SELECT's (and then of nothing inside).
  const isInner = (r: Ref): boolean | undefined => ownedBy(r, innerSources, env);
  const isOuter = (r: Ref): boolean => isInner(r) === false && ownedOnce(r, outerSources, env);
  const readsOnlyInner = (v: unknown): boolean => columnsIn(v).every((r) => isInner(r) === true);
  if (!readsOnlyInner(inner.expressions)) return undefined;
  const joins = (Array.isArray(inner.joins) ? inner.joins : []) as Array<Record<string, unknown>>;
  if (joins.some((j) => !readsOnlyInner(j.on) || !readsOnlyInner(j.using))) return undefined;
  const pairs: Pair[] = [];
  const local: unknown[] = [];
  for (const c of conjuncts(clausePredicate(inner.where_clause))) {
    if (c === undefined) continue;
    if (readsOnlyInner(c)) {
      local.push(c);
      continue;
    }
    const eq = bodyOf(unparen(c), 'eq');
    const [l, r] = [unparen(eq?.left), unparen(eq?.right)];
    const [lr, rr] = [columnRef(l), columnRef(r)];
    if (!lr || !rr) return undefined;
    if (isInner(lr) === true && isOuter(rr)) pairs.push({ inner: l, outer: r });
    else if (isInner(rr) === true && isOuter(lr)) pairs.push({ inner: r, outer: l });
    else return undefined;
  }
  return pairs.length > 0 ? { agg, output, pairs, local } : undefined;
};

/** Types equal in every respect that `=` and GROUP BY read (parameters and collation), integers of any width. */
const keysAlike = (a: SqlType | undefined, b: SqlType | undefined, ctx: RuleContext): boolean => {
  if (!a || !b) return false;
  // Floats: NaN and -0.0 group and compare differently across engines; `other`/`null`: nothing known.
  if (['float', 'other', 'null'].includes(a.family)) return false;
  if (a.family === 'int' && b.family === 'int') return true;
  return sameType(a, b, ctx.dialect);
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'single-aggregate-output',
    needs: ['uniqueness', 'nulls'],
    text: 'the subquery is one SELECT over catalog tables whose only output is built from constants around exactly one COUNT / SUM / AVG / MIN / MAX call (no ordered aggregate, no window), with no GROUP BY, HAVING, QUALIFY, DISTINCT, ORDER BY, row limit, sample, WITH or nested query: it returns one row per outer row, the aggregate over the rows its WHERE keeps, 0 for an empty COUNT and NULL for the others',
    holds: (site) => {
      const { inner } = site;
      if (!Array.isArray(inner.expressions) || inner.expressions.length !== 1) return false;
      if (!onlyFromAndWhere(inner)) return false;
      if (someNode(inner, (_n, k) => k === 'subquery' || k === 'exists' || k === 'window_function'))
        return false;
      const sources = sourcesOf(inner);
      if (!sources || sources.length === 0 || sources.some((x) => x.table === undefined)) return false;
      return singleAggregate(unaliased(inner.expressions[0])) !== undefined;
    },
  },
  {
    id: 'correlated-by-key-equality',
    needs: ['scope', 'determinism'],
    text: "the subquery reads the outer SELECT only through WHERE conjuncts `inner_column = outer_column` (bare columns; the outer one a column of the SELECT the subquery sits in, named by no source of the subquery), every other conjunct, join condition and the output read only the subquery's own tables, and nothing in it is volatile: grouping by the inner columns computes every outer row's value at once",
    holds: (site) => {
      if (isVolatileOrOpaque(site.inner.where_clause) || isVolatileOrOpaque(site.inner.joins)) return false;
      site.analysis = analyse(site);
      return site.analysis !== undefined;
    },
  },
  {
    id: 'join-keys-compare-alike',
    needs: ['types', 'collation'],
    text: "each correlated pair has one known type on both sides (parameters and collation included; integers of any width), not a float: GROUP BY then merges exactly the values `=` calls equal, and the join's `=` between a group's key and the outer column decides as the subquery's `=` did for each of the group's rows (MySQL's case-insensitive collations too — equality is an equivalence — but not a mix of collations or of string and number, where the coercion of `=` would differ)",
    holds: (site, ctx) =>
      site.analysis !== undefined &&
      site.analysis.pairs.every((p) =>
        keysAlike(exprType(p.inner, site.inner, site.env), exprType(p.outer, site.s, site.env), ctx),
      ),
  },
  {
    id: 'outer-rows-kept',
    needs: ['uniqueness', 'scope'],
    text: 'the LEFT JOIN can be appended to the outer SELECT without changing its rows or names: its FROM is one item followed by joins, or a comma list without joins (made CROSS JOINs), it has no bare `*` (the new columns would show), and a select-list subquery sits in an aliased item of a SELECT without GROUP BY, HAVING or aggregate (the select list is read per row); the derived table is unique on its GROUP BY keys, so each outer row meets at most one row',
    holds: ({ s, position, aliased }) => {
      const from = isRecord(s.from) && Array.isArray(s.from.expressions) ? s.from.expressions : [];
      const joins = Array.isArray(s.joins) ? s.joins : [];
      if (from.length === 0 || (from.length > 1 && joins.length > 0)) return false;
      if (!sourcesOf(s) || !EMPTY(s.connect) || !EMPTY(s.into)) return false;
      if (someNode(s.expressions, (n, k) => k === 'star' && EMPTY(bodyOf(n, 'star')?.table))) return false;
      if (
        someNode(
          s.expressions,
          (n, k) => k === 'column' && EMPTY(bodyOf(n, 'column')?.table) && columnRef(n)?.name === '*',
        )
      )
        return false;
      if (position === 'where') return true;
      return (
        aliased &&
        plainGroupKeys(s) === undefined &&
        EMPTY(s.group_by) &&
        clausePredicate(s.having) === undefined &&
        !hasAggregate(s.expressions)
      );
    },
  },
];

/** The SELECT of a scalar subquery `(SELECT …)` with an aggregate output (a candidate site), or undefined. */
const scalarSelect = (v: unknown): SelectBody | undefined => {
  const sq = bodyOf(v, 'subquery');
  if (!sq || sq.alias !== null || sq.lateral === true) return undefined;
  if (!EMPTY(sq.order_by) || !EMPTY(sq.limit) || !EMPTY(sq.offset)) return undefined;
  const sel = bodyOf(sq.this, 'select');
  if (!sel || !Array.isArray(sel.expressions) || sel.expressions.length !== 1) return undefined;
  return someNode(sel.expressions[0], (_n, k) => AGGREGATES.has(k)) ? sel : undefined;
};

/** Whether the subquery reads a column that is not its own but the outer SELECT's: a correlated one. */
const correlated = (inner: SelectBody, s: SelectBody, env: TypeEnv): boolean => {
  const innerSources = sourcesOf(inner);
  const outerSources = sourcesOf(s);
  if (!innerSources || !outerSources) return false;
  return columnsIn(inner).some((r) => {
    if (r.table !== undefined)
      return !innerSources.some((x) => x.alias === r.table) && outerSources.some((x) => x.alias === r.table);
    return ownedBy(r, innerSources, env) === false && ownedBy(r, outerSources, env) === true;
  });
};

/** Every string in the tree, lower-cased: a fresh name is none of them. */
const namesIn = (v: unknown, out: Set<string>): Set<string> => {
  if (typeof v === 'string') out.add(v.toLowerCase());
  else if (Array.isArray(v)) for (const x of v) namesIn(x, out);
  else if (isRecord(v)) for (const k in v) if (k !== 'span') namesIn(v[k], out);
  return out;
};

const ident = (name: string): SqlNode => ({ name, quoted: false });
const col = (table: string, name: string): SqlNode => ({
  column: { name: ident(name), table: ident(table), join_mark: false },
});
const aliasOf = (e: unknown, name: string): SqlNode => ({
  alias: { this: e, alias: ident(name), column_aliases: [], alias_explicit_as: true },
});
const joinNode = (item: unknown, kind: string, on: unknown): Record<string, unknown> => ({
  this: item,
  on,
  using: [],
  kind,
  use_inner_keyword: false,
  use_outer_keyword: false,
  deferred_condition: false,
  nesting_group: 0,
  directed: false,
});

/** The grouped derived table and the expression that replaces the subquery. */
const build = (site: Site, a: Analysis, name: string): { join: Record<string, unknown>; value: unknown } => {
  const keys = a.pairs.map((p, i) => aliasOf(p.inner, `${name}_k${i + 1}`));
  const where = andAll(a.local);
  const body: SelectBody = {
    ...site.inner,
    expressions: [...keys, aliasOf(a.agg, `${name}_v`)],
    where_clause:
      where === undefined
        ? null
        : { ...(isRecord(site.inner.where_clause) ? site.inner.where_clause : {}), this: where },
    group_by: { expressions: a.pairs.map((p) => p.inner), all: null, totals: false },
  };
  const derived = derivedTable({ select: body }, ident(name));
  const on = andAll(a.pairs.map((p, i) => binary('eq', col(name, `${name}_k${i + 1}`), p.outer)));
  const v = col(name, `${name}_v`);
  // COUNT of an empty group is 0, and the LEFT JOIN pads a key without rows with NULL.
  const aggValue = isCount(a.agg)
    ? { coalesce: { expressions: [v, { literal: { literal_type: 'number', value: '0' } }] } }
    : v;
  const replaced = mapTree(a.output, (n) => (n === a.agg ? aggValue : n));
  const value =
    replaced === aggValue || kindOf(replaced) === 'column' ? replaced : { paren: { this: replaced } };
  return { join: joinNode(derived, 'Left', on), value };
};

/** `FROM a, b, c` as `FROM a CROSS JOIN b CROSS JOIN c` (the same rows; a JOIN after a comma binds only to c). */
const crossJoined = (s: SelectBody): SelectBody => {
  const from = s.from as Record<string, unknown>;
  const items = from.expressions as unknown[];
  if (items.length < 2) return s;
  return {
    ...s,
    from: { ...from, expressions: [items[0]] },
    joins: items.slice(1).map((it) => joinNode(it, 'Cross', null)),
  };
};

const NESTED = new Set(['subquery', 'select', 'exists', 'union', 'intersect', 'except']);

/** Replaces the candidate subqueries directly in `v` (not inside nested queries) by `fn`'s answer. */
const mapScalarSites = (v: unknown, fn: (sq: SqlNode, inner: SelectBody) => unknown): unknown => {
  if (Array.isArray(v)) {
    const out = v.map((x: unknown) => mapScalarSites(x, fn));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (!isRecord(v)) return v;
  const kind = kindOf(v);
  if (kind !== undefined && NESTED.has(kind)) {
    const inner = kind === 'subquery' ? scalarSelect(v) : undefined;
    return inner ? fn(v, inner) : v;
  }
  let copy: Record<string, unknown> | undefined;
  for (const k in v) {
    const child = v[k];
    if (k === 'span' || typeof child !== 'object' || child === null) continue;
    const next = mapScalarSites(child, fn);
    if (next !== child) (copy ??= { ...v })[k] = next;
  }
  return copy ?? v;
};

const rewriteSelect = (s0: SelectBody, ctx: RuleContext, env: TypeEnv, taken: Set<string>): SelectBody => {
  let s = s0;
  const added: Array<Record<string, unknown>> = [];
  const fresh = (): string => {
    for (let i = 1; ; i++) {
      const n = `sq${i}`;
      if (![n, `${n}_v`, `${n}_k1`, `${n}_k2`, `${n}_k3`].some((x) => taken.has(x))) {
        taken.add(n);
        return n;
      }
    }
  };
  const visit = (position: 'select' | 'where', aliased: boolean) => (sq: SqlNode, inner: SelectBody) => {
    if (!correlated(inner, s0, env)) return sq;
    const site: Site = { s: s0, inner, position, aliased, env };
    if (!discharge('correlated-aggregate-to-join', OBLIGATIONS, site, ctx) || !site.analysis) return sq;
    const { join, value } = build(site, site.analysis, fresh());
    added.push(join);
    return value;
  };
  const exprs = Array.isArray(s.expressions)
    ? s.expressions.map((item: unknown) =>
        mapScalarSites(item, visit('select', bodyOf(item, 'alias') !== undefined)),
      )
    : s.expressions;
  const where = clausePredicate(s.where_clause);
  const nextWhere = where === undefined ? undefined : mapScalarSites(where, visit('where', false));
  if (added.length === 0) return s0;
  s = crossJoined({
    ...s,
    expressions: exprs,
    ...(nextWhere !== where ? { where_clause: { ...(s.where_clause as object), this: nextWhere } } : {}),
  });
  const joins: unknown[] = Array.isArray(s.joins) ? s.joins : [];
  return { ...s, joins: [...joins, ...added] };
};

/**
 * `correlated-aggregate-to-join`: a correlated scalar aggregate subquery becomes a LEFT JOIN to the same
 * aggregate grouped by the correlated columns — computed once for all outer rows instead of once per row
 * (PostgreSQL and MariaDB run such a subquery per row; neither decorrelates it).
 *
 * Why results are kept: the subquery returns one row per outer row, the aggregate over the rows of its FROM
 * that its own conjuncts keep and whose correlated columns equal the outer row's. Grouping those rows by the
 * correlated columns (of the outer column's very type, so GROUP BY merges exactly what `=` calls equal)
 * gives, per key, that same aggregate; the derived table is unique on its keys, so the LEFT JOIN keeps every
 * outer row once, and finds the group of the outer row's key, or none (a NULL key, or no rows): then COUNT is
 * 0 (COALESCE) and SUM / AVG / MIN / MAX are NULL, as the subquery's aggregate over no rows. Constants around
 * the aggregate (`0.2 * AVG(x)`) are evaluated on the same value outside.
 *
 * @example `SELECT o.o_orderkey, (SELECT COUNT(*) FROM lineitem l WHERE l.l_orderkey = o.o_orderkey) AS n FROM orders o`
 *   → `SELECT o.o_orderkey, COALESCE(sq1.sq1_v, 0) AS n FROM orders o LEFT JOIN (SELECT l.l_orderkey AS sq1_k1,
 *   COUNT(*) AS sq1_v FROM lineitem l GROUP BY l.l_orderkey) AS sq1 ON sq1.sq1_k1 = o.o_orderkey`
 */
export const correlatedAggregateToJoin: RewriteRule = {
  name: 'correlated-aggregate-to-join',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['subquery'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const env = typeEnv(tree, ctx.catalog, ctx.dialect);
    const taken = namesIn(tree, new Set());
    return mapSelects(tree, (s) => rewriteSelect(s, ctx, env, taken));
  },
};
