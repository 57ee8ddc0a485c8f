import type { SqlNode } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { isEmptyClause, mapPredicates, onlyFromAndWhere } from '../selects.ts';
import { bodyOf, mapTree } from '../tree-ops.ts';

/** A comparison of a scalar subquery whose one output is a COUNT with a number literal. */
type Site = {
  /** The subquery's SELECT. */
  readonly select: Record<string, unknown>;
  /** The comparison read as `count op k` (the subquery moved to the left). */
  readonly op: string;
  readonly k: string;
};

const MIRROR: Readonly<Record<string, string>> = {
  gt: 'lt',
  gte: 'lte',
  lt: 'gt',
  lte: 'gte',
  eq: 'eq',
  neq: 'neq',
};

/** `count op k` is TRUE exactly when the count is positive (`exists`) or exactly when it is 0 (`none`). */
const zeroTest = (op: string, k: string): 'exists' | 'none' | undefined => {
  if ((op === 'gt' || op === 'neq') && k === '0') return 'exists';
  if (op === 'gte' && k === '1') return 'exists';
  if ((op === 'eq' || op === 'lte') && k === '0') return 'none';
  if (op === 'lt' && k === '1') return 'none';
  return undefined;
};

const EMPTY_OR_NULL = isEmptyClause;

/** A select item without its alias (`COUNT(*) AS n`). */
const unaliased = (item: unknown): unknown => bodyOf(item, 'alias')?.this ?? item;

/** COUNT(*) or COUNT of a non-NULL literal, without DISTINCT or FILTER: the number of rows. */
const countsRows = (item: unknown): boolean => {
  const c = bodyOf(unaliased(item), 'count');
  if (!c || c.distinct === true || !EMPTY_OR_NULL(c.filter)) return false;
  if (c.star === true) return c.this === null || c.this === undefined;
  const lit = bodyOf(c.this, 'literal');
  return lit !== undefined && (lit.literal_type === 'number' || lit.literal_type === 'string');
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'count-returns-one-row',
    needs: ['uniqueness', 'nulls'],
    text: 'the subquery is one SELECT whose only output is COUNT(*) (or COUNT of a non-NULL literal) without DISTINCT or FILTER, and has no GROUP BY, HAVING, window, QUALIFY, DISTINCT, row limit, ORDER BY, sample or WITH: it returns exactly one row, the number of rows its FROM and WHERE keep, never NULL',
    holds: ({ select: s }) =>
      Array.isArray(s.expressions) &&
      s.expressions.length === 1 &&
      countsRows(s.expressions[0]) &&
      onlyFromAndWhere(s),
  },
  {
    id: 'compares-with-zero',
    needs: ['types'],
    text: 'the comparison is with the integer 0 or 1 so that it is TRUE exactly when the count is positive (> 0, >= 1, <> 0) or exactly when it is zero (= 0, <= 0, < 1); any other constant asks for a count',
    holds: ({ op, k }) => zeroTest(op, k) !== undefined,
  },
];

const unparen = (v: unknown): unknown => {
  let cur = v;
  for (let p = bodyOf(cur, 'paren'); p; p = bodyOf(cur, 'paren')) cur = p.this;
  return cur;
};

/** The SELECT of a plain scalar subquery `(SELECT …)` (no alias, no ORDER BY / LIMIT around it). */
const scalarSelect = (v: unknown): Record<string, unknown> | undefined => {
  const sq = bodyOf(unparen(v), 'subquery');
  if (!sq || sq.alias !== null || sq.lateral === true) return undefined;
  if (!EMPTY_OR_NULL(sq.order_by) || !EMPTY_OR_NULL(sq.limit) || !EMPTY_OR_NULL(sq.offset)) return undefined;
  const sel = bodyOf(sq.this, 'select');
  if (!sel || !Array.isArray(sel.expressions) || sel.expressions.length !== 1) return undefined;
  return bodyOf(unaliased(sel.expressions[0]), 'count') ? sel : undefined;
};

const numberText = (v: unknown): string | undefined => {
  const lit = bodyOf(unparen(v), 'literal');
  return lit?.literal_type === 'number' && typeof lit.value === 'string' ? lit.value : undefined;
};

/** `(NOT EXISTS …)` needs no brackets as the whole predicate or an operand of AND / OR / NOT. */
const bare = (v: unknown): unknown => {
  const p = bodyOf(v, 'paren');
  const n = p && bodyOf(p.this, 'not');
  return n && bodyOf(n.this, 'exists') ? p.this : v;
};
const unbracket = (pred: unknown): unknown =>
  mapTree(bare(pred), (node, kind) => {
    if (kind !== 'and' && kind !== 'or') return node;
    const b = node[kind] as Record<string, unknown>;
    const [l, r] = [bare(b.left), bare(b.right)];
    return l === b.left && r === b.right ? node : { [kind]: { ...b, left: l, right: r } };
  });

/**
 * `count-to-exists`: a scalar COUNT(*) subquery compared with zero becomes EXISTS / NOT EXISTS.
 *
 * Why results are kept: COUNT(*) over a SELECT without GROUP BY returns exactly one row, the number n ≥ 0 of
 * rows its FROM and WHERE keep, never NULL. So `n > 0`, `n >= 1`, `n <> 0` are TRUE exactly when one row is
 * kept (EXISTS), and `n = 0`, `n <= 0`, `n < 1` exactly when none is (NOT EXISTS); both sides are TRUE or
 * FALSE, never NULL, at any position (MySQL's 1 / 0 included). The engine can stop at the first row and plan
 * a semi-join instead of counting every match per outer row.
 *
 * @example `WHERE (SELECT COUNT(*) FROM lineitem l WHERE l.l_orderkey = o.o_orderkey) > 0`
 *   → `WHERE EXISTS (SELECT 1 FROM lineitem l WHERE l.l_orderkey = o.o_orderkey)`
 */
export const countToExists: RewriteRule = {
  name: 'count-to-exists',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['count'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) =>
    mapPredicates(tree, (pred) => {
      const next = mapTree(pred, (node, kind) => {
        const inner = kind === 'paren' ? bodyOf(node, 'paren')?.this : undefined;
        if (inner !== undefined && bare(inner) !== inner) return inner as SqlNode;
        if (!(kind in MIRROR)) return node;
        const body = node[kind] as Record<string, unknown>;
        let select = scalarSelect(body.left);
        let op = kind;
        let k = numberText(body.right);
        if (!select) {
          select = scalarSelect(body.right);
          op = MIRROR[kind] as string;
          k = numberText(body.left);
        }
        if (!select || k === undefined) return node;
        const site: Site = { select, op, k };
        if (!discharge('count-to-exists', OBLIGATIONS, site, ctx)) return node;
        const test = zeroTest(op, k);
        const one: SqlNode = { literal: { literal_type: 'number', value: '1' } };
        const exists: SqlNode = {
          exists: { this: { select: { ...select, expressions: [one] } }, not: false },
        };
        // NOT binds more loosely than IS and = (MySQL, PostgreSQL): bracketed, unless a connective holds it.
        return test === 'exists' ? exists : { paren: { this: { not: { this: exists } } } };
      });
      return next === pred ? pred : unbracket(next);
    }),
};
