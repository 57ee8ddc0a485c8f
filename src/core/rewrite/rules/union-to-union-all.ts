import { findTable } from '../../catalog.ts';
import { isRecord, kindOf } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import {
  clausePredicate,
  hasAggregate,
  hasWindow,
  plainGroupKeys,
  selectItems,
  sourcesOf,
} from '../selects.ts';
import type { SelectBody } from '../selects.ts';
import { exprType, sameType, typeEnv } from '../sql-types.ts';
import type { SqlType, TypeEnv } from '../sql-types.ts';
import { bodyOf, columnRef, conjuncts, sameNode, someNode } from '../tree-ops.ts';

/** A chain of UNION (DISTINCT) operations and its branches, left to right. */
type Site = {
  readonly branches: readonly SelectBody[];
  readonly env: TypeEnv;
};

const EMPTY = (v: unknown): boolean =>
  v === null || v === undefined || v === false || (Array.isArray(v) && v.length === 0);

const unparen = (v: unknown): unknown => {
  let cur = v;
  for (let p = bodyOf(cur, 'paren'); p; p = bodyOf(cur, 'paren')) cur = p.this;
  return cur;
};

/** A number literal (maybe negated) as an exact decimal: sign, digits and scale; undefined otherwise. */
type Decimal = { readonly n: bigint; readonly scale: number };
const decimalOf = (v: unknown): Decimal | undefined => {
  const inner = unparen(v);
  const neg = bodyOf(inner, 'neg');
  const lit = bodyOf(neg ? unparen(neg.this) : inner, 'literal');
  if (!lit || lit.literal_type !== 'number' || typeof lit.value !== 'string') return undefined;
  const m = /^(\d*)(?:\.(\d*))?$/.exec(lit.value);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
  const frac = m[2] ?? '';
  const n = BigInt(`${m[1] || '0'}${frac}`);
  return { n: neg ? -n : n, scale: frac.length };
};
const cmpDecimal = (a: Decimal, b: Decimal): number => {
  const s = Math.max(a.scale, b.scale);
  const x = a.n * 10n ** BigInt(s - a.scale);
  const y = b.n * 10n ** BigInt(s - b.scale);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** A constant output item: a number or a string literal (never NULL: UNION treats NULLs as equal). */
type Constant =
  { readonly kind: 'number'; readonly d: Decimal } | { readonly kind: 'string'; readonly s: string };
const constantOf = (v: unknown): Constant | undefined => {
  const d = decimalOf(v);
  if (d) return { kind: 'number', d };
  const lit = bodyOf(unparen(v), 'literal');
  return lit?.literal_type === 'string' && typeof lit.value === 'string'
    ? { kind: 'string', s: lit.value }
    : undefined;
};

/**
 * Whether two constants differ under any equality a warehouse may use: numbers by value (1 = 1.0); strings
 * only when both are plain ASCII and differ ignoring case and trailing spaces (MySQL's case-insensitive, PAD
 * SPACE collations; a Snowflake or BigQuery default collation may ignore case too).
 */
const constantsDiffer = (a: Constant, b: Constant): boolean => {
  if (a.kind === 'number' && b.kind === 'number') return cmpDecimal(a.d, b.d) !== 0;
  if (a.kind !== 'string' || b.kind !== 'string') return false;
  const ascii = (s: string): boolean => /^[\x20-\x7e]*$/.test(s);
  const norm = (s: string): string => s.toLowerCase().replace(/ +$/, '');
  return ascii(a.s) && ascii(b.s) && norm(a.s) !== norm(b.s);
};

/** The interval a branch's WHERE keeps of a column: bounds with inclusiveness (no bound: unbounded). */
type Bound = { readonly d: Decimal; readonly inclusive: boolean };
type Interval = { lo?: Bound; hi?: Bound };

const FLIP: Readonly<Record<string, string>> = { lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte', eq: 'eq' };

/** The top-level WHERE conjuncts comparing `col` with a number: the interval they keep (NULL never kept). */
const intervalOf = (s: SelectBody, col: unknown): Interval | undefined => {
  const out: Interval = {};
  let found = false;
  const tighten = (op: string, d: Decimal): void => {
    found = true;
    if (op === 'gt' || op === 'gte' || op === 'eq') {
      const b = { d, inclusive: op !== 'gt' };
      const c = out.lo ? cmpDecimal(d, out.lo.d) : 1;
      if (c > 0 || (c === 0 && !b.inclusive)) out.lo = b;
    }
    if (op === 'lt' || op === 'lte' || op === 'eq') {
      const b = { d, inclusive: op !== 'lt' };
      const c = out.hi ? cmpDecimal(d, out.hi.d) : -1;
      if (c < 0 || (c === 0 && !b.inclusive)) out.hi = b;
    }
  };
  for (const c of conjuncts(clausePredicate(s.where_clause))) {
    const inner = unparen(c);
    const kind = kindOf(inner);
    if (kind === 'between') {
      const b = bodyOf(inner, 'between') as Record<string, unknown>;
      const [lo, hi] = [decimalOf(b.low), decimalOf(b.high)];
      if (b.not !== true && lo && hi && sameNode(unparen(b.this), col)) {
        tighten('gte', lo);
        tighten('lte', hi);
      }
      continue;
    }
    if (kind === undefined || !(kind in FLIP)) continue;
    const b = bodyOf(inner, kind) as Record<string, unknown>;
    const [l, r] = [unparen(b.left), unparen(b.right)];
    const [dl, dr] = [decimalOf(l), decimalOf(r)];
    if (dr && sameNode(l, col)) tighten(kind, dr);
    else if (dl && sameNode(r, col)) tighten(FLIP[kind] as string, dl);
  }
  return found ? out : undefined;
};

const disjointIntervals = (a: Interval, b: Interval): boolean => {
  const below = (x: Interval, y: Interval): boolean => {
    if (!x.hi || !y.lo) return false;
    const c = cmpDecimal(x.hi.d, y.lo.d);
    return c < 0 || (c === 0 && !(x.hi.inclusive && y.lo.inclusive));
  };
  const empty = (x: Interval): boolean => below({ hi: x.hi }, { lo: x.lo }) && x.lo !== undefined;
  return below(a, b) || below(b, a) || empty(a) || empty(b);
};

const NUMERIC = new Set(['int', 'decimal', 'float']);

/** Whether two branches can never return equal rows: some output position tells them apart. */
const disjoint = (a: SelectBody, b: SelectBody, env: TypeEnv, ctx: RuleContext): boolean => {
  const [ia, ib] = [selectItems(a), selectItems(b)];
  return ia.some((x, i) => {
    const y = ib[i];
    if (!y) return false;
    const [ca, cb] = [constantOf(x.expr), constantOf(y.expr)];
    if (ca && cb) return constantsDiffer(ca, cb);
    // The same bare column kept in ranges that do not meet (each excludes NULL: a comparison with NULL fails).
    const [ra, rb] = [columnRef(x.expr), columnRef(y.expr)];
    if (!ra || !rb) return false;
    const [ta, tb] = [exprType(x.expr, a, env), exprType(y.expr, b, env)];
    if (!ta || !tb || !NUMERIC.has(ta.family) || !typesAlike(ta, tb, ctx)) return false;
    const [ka, kb] = [intervalOf(a, x.expr), intervalOf(b, y.expr)];
    return ka !== undefined && kb !== undefined && disjointIntervals(ka, kb);
  });
};

const typesAlike = (a: SqlType, b: SqlType, ctx: RuleContext): boolean =>
  (a.family === 'int' && b.family === 'int') || sameType(a, b, ctx.dialect);

/** Whether a SELECT returns no two equal rows (under its own types' equality). */
const duplicateFree = (s: SelectBody, ctx: RuleContext): boolean => {
  if (!EMPTY(s.distinct_on) || !EMPTY(s.lateral_views) || someNode(s.expressions, (_n, k) => k === 'star'))
    return false;
  if (s.distinct === true) return true;
  const keys = plainGroupKeys(s);
  const items = selectItems(s);
  if (keys && !hasWindow(s)) return keys.every((k) => items.some((i) => sameNode(i.expr, k)));
  if (!EMPTY(s.group_by)) return false;
  // An aggregate without GROUP BY: one row.
  if (hasAggregate(s.expressions) && !hasWindow(s)) return true;
  // One catalog table, no join: its primary key output as bare columns.
  const sources = sourcesOf(s);
  const from = sources?.[0];
  if (!sources || sources.length !== 1 || !from || from.table === undefined || !EMPTY(s.joins)) return false;
  if (someNode(s.expressions, (_n, k) => k === 'unnest' || k === 'explode')) return false;
  const table = bodyOf(from.node, 'table');
  if (!table || !EMPTY(table.column_aliases)) return false;
  const pk = findTable(ctx.catalog, from.table)?.primaryKey ?? [];
  return (
    pk.length > 0 &&
    pk.every((c) =>
      items.some((i) => {
        const r = columnRef(i.expr);
        return (
          r !== undefined && r.name === c.toLowerCase() && (r.table === undefined || r.table === from.alias)
        );
      }),
    )
  );
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'branches-duplicate-free',
    needs: ['uniqueness'],
    text: 'every branch is a SELECT that returns no two equal rows: DISTINCT, GROUP BY keys all output, an aggregate without GROUP BY (one row), or a single catalog table without joins whose primary key is output as bare columns (no `*`, DISTINCT ON or set-returning function): UNION removes duplicates within a branch too',
    holds: ({ branches }, ctx) => branches.every((b) => duplicateFree(b, ctx)),
  },
  {
    id: 'branch-types-equal',
    needs: ['types', 'collation'],
    text: "at every output position the branches that do not output a literal there have one known type (parameters and collation included; integers of any width): the union's result type is theirs, so its equality is the one that made each branch's rows distinct (a MySQL case-sensitive branch under a case-insensitive union could merge two of its rows)",
    holds: ({ branches, env }, ctx) => {
      const lists = branches.map(selectItems);
      const width = lists[0]?.length ?? 0;
      if (lists.some((l) => l.length !== width)) return false;
      for (let i = 0; i < width; i++) {
        const typed = branches.flatMap((b, j) => {
          const item = lists[j]?.[i];
          return item && constantOf(item.expr) === undefined && kindOf(unparen(item.expr)) !== 'null'
            ? [exprType(item.expr, b, env)]
            : [];
        });
        if (typed.some((t) => t === undefined)) return false;
        const [first] = typed as SqlType[];
        if (first && !(typed as SqlType[]).every((t) => typesAlike(first, t, ctx))) return false;
      }
      return true;
    },
  },
  {
    id: 'branches-disjoint',
    needs: ['types', 'collation', 'nulls'],
    text: 'every two branches differ at some output position for every pair of rows: both output literals there that no equality merges (numbers of different value; plain ASCII strings that differ ignoring case and trailing spaces), or both output the same numeric column of one type kept by top-level WHERE comparisons with numbers to ranges that do not meet (a comparison keeps no NULL, which UNION would merge)',
    holds: ({ branches, env }, ctx) =>
      branches.every((a, i) => branches.every((b, j) => j <= i || disjoint(a, b, env, ctx))),
  },
];

/** A UNION without ALL that a chain may pass through (no ORDER BY / LIMIT of its own, no BY NAME). */
const distinctUnion = (v: unknown): Record<string, unknown> | undefined => {
  const u = bodyOf(v, 'union');
  if (!u || u.all === true || u.by_name === true || u.corresponding === true || u.strict === true)
    return undefined;
  return u;
};
const plainChainLink = (u: Record<string, unknown>): boolean =>
  EMPTY(u.order_by) && EMPTY(u.limit) && EMPTY(u.offset) && EMPTY(u.with);

/** The branches of a left-deep chain of UNIONs starting at `u` (undefined when one is not a plain SELECT). */
const branchesOf = (u: Record<string, unknown>): SelectBody[] | undefined => {
  const right = bodyOf(u.right, 'select');
  if (!right) return undefined;
  const leftUnion = distinctUnion(u.left);
  if (leftUnion) {
    if (!plainChainLink(leftUnion)) return undefined;
    const left = branchesOf(leftUnion);
    return left ? [...left, right] : undefined;
  }
  const left = bodyOf(u.left, 'select');
  return left ? [left, right] : undefined;
};

/** The chain with every UNION made UNION ALL. */
const allOf = (v: unknown): unknown => {
  const u = distinctUnion(v);
  if (!u) return v;
  return { union: { ...u, left: allOf(u.left), all: true, distinct: false } };
};

/**
 * `union-to-union-all`: a UNION of branches that are each duplicate-free and pairwise disjoint is a UNION ALL.
 *
 * Why results are kept: UNION returns the distinct rows of all branches. When no branch holds two equal rows
 * (DISTINCT, GROUP BY keys, one row, a primary key) under the very equality UNION uses (one type per column),
 * and no row of one branch equals a row of another (a tag literal that differs, ranges of one column that do
 * not meet), the concatenation has no duplicate to remove: UNION ALL returns the same rows without the sort or
 * hash that deduplicates them.
 *
 * @example `SELECT o_orderkey, 'big' AS kind FROM orders WHERE o_totalprice > 400000 UNION SELECT o_orderkey,
 *   'old' FROM orders WHERE o_orderdate < '1992-02-01'` → the same with UNION ALL
 */
export const unionToUnionAll: RewriteRule = {
  name: 'union-to-union-all',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['union'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const env = typeEnv(tree, ctx.catalog, ctx.dialect);
    const done = new WeakSet<object>();
    // Top-down: the outermost UNION of a chain decides for all of it.
    const visit = (v: unknown): unknown => {
      if (Array.isArray(v)) {
        const out = v.map(visit);
        return out.some((x, i) => x !== v[i]) ? out : v;
      }
      if (!isRecord(v)) return v;
      const u = distinctUnion(v);
      if (u && !done.has(u)) {
        const branches = branchesOf(u);
        if (branches && discharge('union-to-union-all', OBLIGATIONS, { branches, env }, ctx)) {
          const next = allOf(v) as Record<string, unknown>;
          const body = next.union as Record<string, unknown>;
          return { union: { ...body, right: visit(body.right), left: visitLeaves(body.left) } };
        }
        // Refused: its inner links are part of this chain, not chains of their own.
        for (let l = distinctUnion(u.left); l; l = distinctUnion(l.left)) done.add(l);
      }
      let copy: Record<string, unknown> | undefined;
      for (const k in v) {
        const child = v[k];
        if (k === 'span' || typeof child !== 'object' || child === null) continue;
        const next = visit(child);
        if (next !== child) (copy ??= { ...v })[k] = next;
      }
      return copy ?? v;
    };
    // Inside a converted chain: only the branches' own subqueries remain to visit.
    const visitLeaves = (v: unknown): unknown => {
      const u = bodyOf(v, 'union');
      if (u) return { union: { ...u, left: visitLeaves(u.left), right: visit(u.right) } };
      return visit(v);
    };
    const out = visit(tree);
    return (out === tree ? tree : out) as typeof tree;
  },
};
