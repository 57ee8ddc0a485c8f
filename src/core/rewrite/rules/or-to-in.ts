import { isRecord, kindOf } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { clausePredicate, isVolatileOrOpaque, mapSelects } from '../selects.ts';
import type { SelectBody } from '../selects.ts';
import { exprType, typeEnv } from '../sql-types.ts';
import type { TypeEnv } from '../sql-types.ts';
import { binary, bodyOf, sameNode } from '../tree-ops.ts';

/** Equalities of one operand with constants, OR-ed together: `e = a OR e = b OR e IN (c)`. */
type Site = {
  readonly s: SelectBody;
  readonly operand: unknown;
  readonly constants: readonly unknown[];
  readonly env: TypeEnv;
};

const unparen = (v: unknown): unknown => {
  let cur = v;
  for (let p = bodyOf(cur, 'paren'); p; p = bodyOf(cur, 'paren')) cur = p.this;
  return cur;
};

/** A literal (maybe negated or bracketed), or NULL: its family, or undefined for anything else. */
const constantKind = (v: unknown): 'integer' | 'number' | 'string' | 'null' | undefined => {
  const inner = unparen(v);
  if (kindOf(inner) === 'null') return 'null';
  const neg = bodyOf(inner, 'neg');
  const lit = bodyOf(neg ? unparen(neg.this) : inner, 'literal');
  if (!lit || typeof lit.value !== 'string') return undefined;
  if (lit.literal_type === 'number') return /^\d+$/.test(lit.value) ? 'integer' : 'number';
  return !neg && lit.literal_type === 'string' ? 'string' : undefined;
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'deterministic-operand',
    needs: ['determinism'],
    text: 'the compared expression is deterministic and holds no subquery, window, parameter or variable: IN evaluates it once where the OR evaluated it per comparison',
    holds: ({ operand }) => !isVolatileOrOpaque(operand),
  },
  {
    id: 'constants-of-operand-type',
    needs: ['types', 'collation'],
    text: "the catalog gives the operand's type, and every constant is NULL or a literal of that type's family — integers for an integer operand, numbers for a decimal or float one, strings for a string one — so IN's common type is the operand's, as each `=` compares (MySQL's IN evaluates a mixed list such as (1, 'a') unlike the ORs; PostgreSQL picks one type for the whole list)",
    holds: ({ s, operand, constants, env }) => {
      const t = exprType(operand, s, env);
      if (!t) return false;
      const allowed: ReadonlySet<string> =
        t.family === 'int'
          ? new Set(['integer', 'null'])
          : t.family === 'decimal' || t.family === 'float'
            ? new Set(['integer', 'number', 'null'])
            : t.family === 'string' || t.family === 'char'
              ? new Set(['string', 'null'])
              : new Set();
      const kinds = constants.map(constantKind);
      return kinds.every((k) => k !== undefined && allowed.has(k)) && kinds.some((k) => k !== 'null');
    },
  },
];

/** The disjuncts of an OR chain (brackets around an OR looked through). */
const disjuncts = (pred: unknown): unknown[] => {
  const or = bodyOf(pred, 'or');
  if (or) return [...disjuncts(or.left), ...disjuncts(or.right)];
  const p = bodyOf(pred, 'paren');
  if (p && bodyOf(unparen(p.this), 'or')) return disjuncts(unparen(p.this));
  return [pred];
};

/** `e = c`, `c = e` or `e IN (c, …)` with constants: the operand and its constants. */
const equalityOf = (d: unknown): { operand: unknown; constants: unknown[] } | undefined => {
  const inner = unparen(d);
  const eq = bodyOf(inner, 'eq');
  if (eq) {
    const [l, r] = [eq.left, eq.right];
    if (constantKind(r) !== undefined && constantKind(l) === undefined) return { operand: l, constants: [r] };
    if (constantKind(l) !== undefined && constantKind(r) === undefined) return { operand: r, constants: [l] };
    return undefined;
  }
  const inList = bodyOf(inner, 'in');
  if (
    inList &&
    inList.not !== true &&
    (inList.query === null || inList.query === undefined) &&
    Array.isArray(inList.expressions) &&
    inList.expressions.length > 0 &&
    inList.expressions.every((x: unknown) => constantKind(x) !== undefined) &&
    constantKind(inList.this) === undefined &&
    Object.keys(inList).every((k) => ['this', 'expressions', 'query', 'not'].includes(k) || EMPTY(inList[k]))
  )
    return { operand: inList.this, constants: inList.expressions as unknown[] };
  return undefined;
};

const EMPTY = (v: unknown): boolean =>
  v === null || v === undefined || v === false || (Array.isArray(v) && v.length === 0);

const inNode = (operand: unknown, constants: unknown[]): SqlNode => ({
  in: { this: operand, expressions: constants, query: null, not: false },
});

/** One OR chain regrouped: each operand compared with constants two or more times becomes one IN. */
const regroup = (or: SqlNode, s: SelectBody, env: TypeEnv, ctx: RuleContext): SqlNode => {
  const parts = disjuncts(or);
  const eqs = parts.map(equalityOf);
  const groups: number[][] = [];
  eqs.forEach((e, i) => {
    if (!e) return;
    const g = groups.find((x) => sameNode(eqs[x[0] as number]?.operand, e.operand));
    if (g) g.push(i);
    else groups.push([i]);
  });
  const replaced = new Map<number, unknown>();
  const dropped = new Set<number>();
  for (const g of groups) {
    if (g.length < 2) continue;
    const first = eqs[g[0] as number] as { operand: unknown };
    const constants = g.flatMap((i) => eqs[i]?.constants ?? []);
    const site: Site = { s, operand: first.operand, constants, env };
    if (!discharge('or-to-in', OBLIGATIONS, site, ctx)) continue;
    replaced.set(g[0] as number, inNode(first.operand, constants));
    for (const i of g.slice(1)) dropped.add(i);
  }
  if (replaced.size === 0) return or;
  const kept = parts
    .map((p, i) => (replaced.has(i) ? replaced.get(i) : p))
    .filter((_p, i) => !dropped.has(i))
    .map((p) => (bodyOf(p, 'and') ? { paren: { this: p } } : p));
  return kept.slice(1).reduce((acc: unknown, p) => binary('or', acc, p), kept[0]) as SqlNode;
};

const NESTED = new Set(['subquery', 'select', 'exists', 'union', 'intersect', 'except']);

/** Rewrites every OR chain of a predicate, bottom-up, without entering nested queries (their own scope). */
const mapOrs = (v: unknown, fn: (or: SqlNode) => SqlNode): unknown => {
  if (Array.isArray(v)) {
    const out = v.map((x: unknown) => mapOrs(x, fn));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (!isRecord(v)) return v;
  const kind = kindOf(v);
  if (kind !== undefined && NESTED.has(kind)) return v;
  let copy: Record<string, unknown> | undefined;
  for (const k in v) {
    const child = v[k];
    if (k === 'span' || typeof child !== 'object' || child === null) continue;
    const next = mapOrs(child, fn);
    if (next !== child) (copy ??= { ...v })[k] = next;
  }
  const node = (copy ?? v) as SqlNode;
  // `(a = 1 OR a = 2)` became `(a IN (1, 2))`: the brackets held the OR, an IN needs none.
  const inner = kind === 'paren' && copy ? bodyOf(node, 'paren')?.this : undefined;
  if (inner !== undefined && kindOf(inner) === 'in') return inner;
  return kind === 'or' ? fn(node) : node;
};

const rewriteSelect = (s: SelectBody, env: TypeEnv, ctx: RuleContext): SelectBody => {
  const fn = (or: SqlNode): SqlNode => regroup(or, s, env, ctx);
  let out: SelectBody | undefined;
  for (const field of ['where_clause', 'having', 'qualify']) {
    const pred = clausePredicate(s[field]);
    if (pred === undefined) continue;
    const next = mapOrs(pred, fn);
    if (next !== pred) (out ??= { ...s })[field] = { ...(s[field] as object), this: next };
  }
  if (Array.isArray(s.joins)) {
    const joins = s.joins.map((j: unknown) => {
      if (!isRecord(j) || j.on === null || j.on === undefined) return j;
      const next = mapOrs(j.on, fn);
      return next === j.on ? j : { ...j, on: next };
    });
    if (joins.some((j, i) => j !== (s.joins as unknown[])[i])) (out ??= { ...s }).joins = joins;
  }
  return out ?? s;
};

/**
 * `or-to-in`: `col = a OR col = b OR …` → `col IN (a, b, …)`.
 *
 * Why results are kept: `e IN (a, b)` is defined as `e = a OR e = b`, in three-valued logic too (a NULL
 * constant or operand makes both NULL where no comparison is TRUE), and OR is associative and commutative, so
 * the equalities of one operand may be gathered from anywhere in the chain. Two things could tell them apart:
 * an operand evaluated once instead of per comparison (it must be deterministic), and the type the comparison
 * runs in — IN finds one type for the whole list (PostgreSQL) or evaluates the list in the operand's type
 * (MySQL) — so every constant is a literal of the operand's own type family. Engines then probe a hash or
 * sorted list, and PostgreSQL can use one index scan with `= ANY` instead of a BitmapOr.
 *
 * @example `WHERE l_shipmode = 'AIR' OR l_shipmode = 'MAIL' OR l_quantity > 49`
 *   → `WHERE l_shipmode IN ('AIR', 'MAIL') OR l_quantity > 49`
 */
export const orToIn: RewriteRule = {
  name: 'or-to-in',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['or'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const env = typeEnv(tree, ctx.catalog, ctx.dialect);
    return mapSelects(tree, (s) => rewriteSelect(s, env, ctx));
  },
};
