import type { SqlDialect } from '../../sql/dialect.ts';
import { isRecord, kindOf } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { mapPredicates, mapSelects } from '../selects.ts';
import { FALSE_NODE, NULL_NODE, TRUE_NODE, bodyOf } from '../tree-ops.ts';

type Truth = true | false | null;

/** The three-valued constant a node stands for, or undefined when it is not a constant. */
const truthOf = (v: unknown): Truth | undefined => {
  const b = bodyOf(v, 'boolean');
  if (b && typeof b.value === 'boolean') return b.value;
  if (kindOf(v) === 'null') return null;
  const p = bodyOf(v, 'paren');
  return p ? truthOf(p.this) : undefined;
};

const nodeOf = (t: Truth): SqlNode => (t === null ? NULL_NODE : t ? TRUE_NODE : FALSE_NODE);

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Exact comparison of two decimal literals (no floating point): -1, 0 or 1. */
const compareDecimal = (a: string, b: string): number => {
  const scale = (s: string): [bigint, number] => {
    const [i = '0', f = ''] = s.split('.');
    return [BigInt(i + f), f.length];
  };
  const [ma, sa] = scale(a);
  const [mb, sb] = scale(b);
  const x = ma * 10n ** BigInt(Math.max(sa, sb) - sa);
  const y = mb * 10n ** BigInt(Math.max(sa, sb) - sb);
  return x < y ? -1 : x > y ? 1 : 0;
};

const COMPARISONS: Record<string, (c: number) => boolean> = {
  eq: (c) => c === 0,
  neq: (c) => c !== 0,
  lt: (c) => c < 0,
  lte: (c) => c <= 0,
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
};

const literalOf = (v: unknown): { type: string; value: string } | undefined => {
  const l = bodyOf(v, 'literal');
  return l && typeof l.literal_type === 'string' && typeof l.value === 'string'
    ? { type: l.literal_type, value: l.value }
    : undefined;
};

/** A comparison of two constants that folding would replace by its value. */
type Site = { readonly kind: string; readonly body: Record<string, unknown>; readonly dialect: SqlDialect };

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'exact-constant-comparison',
    needs: ['types', 'collation'],
    text: "the comparison's value is certain from its two constants: NULL on either side, two decimal numbers (compared exactly, never as floats), or two strings compared for (in)equality outside MySQL (whose collations make 'a' = 'A' and 'a' = 'a ' true)",
    holds: (site) => foldComparison(site) !== undefined,
  },
];

/** Folds a comparison of two constants; string equality only where collation cannot make 'a' = 'A'. */
const foldComparison = ({ kind, body, dialect }: Site): Truth | undefined => {
  const test = COMPARISONS[kind];
  if (!test) return undefined;
  if (truthOf(body.left) === null || truthOf(body.right) === null) return null;
  const l = literalOf(body.left);
  const r = literalOf(body.right);
  if (!l || !r) return undefined;
  if (l.type === 'number' && r.type === 'number' && NUMBER.test(l.value) && NUMBER.test(r.value))
    return test(compareDecimal(l.value, r.value));
  if (l.type === 'string' && r.type === 'string' && dialect !== 'mysql' && (kind === 'eq' || kind === 'neq'))
    return test(l.value === r.value ? 0 : 1);
  return undefined;
};

const isConstant = (v: unknown): boolean => truthOf(v) !== undefined || bodyOf(v, 'literal') !== undefined;

/**
 * One pass of three-valued folding over the boolean positions of a predicate: the clause itself and the
 * operands of AND, OR, NOT and parentheses. Values inside comparisons, functions, CASE branches or subqueries
 * are never replaced: there an untyped NULL or (on MySQL) a number standing for a truth value would read
 * differently from the comparison it replaced.
 */
const fold = (pred: unknown, ctx: RuleContext): unknown => {
  const kind = kindOf(pred);
  const raw = kind === undefined ? undefined : (pred as Record<string, unknown>)[kind];
  if (kind === undefined || !isRecord(raw)) return pred;
  const body = raw;
  if (kind === 'and' || kind === 'or') {
    const left = fold(body.left, ctx);
    const right = fold(body.right, ctx);
    const l = truthOf(left);
    const r = truthOf(right);
    const absorbing = kind === 'and' ? false : true;
    if (l === absorbing || r === absorbing) return nodeOf(absorbing);
    if (l === !absorbing) return right;
    if (r === !absorbing) return left;
    if (l === null && r === null) return NULL_NODE;
    return left === body.left && right === body.right ? pred : { [kind]: { ...body, left, right } };
  }
  if (kind === 'not') {
    const inner = fold(body.this, ctx);
    const t = truthOf(inner);
    if (t !== undefined) return nodeOf(t === null ? null : !t);
    const twice = bodyOf(inner, 'not');
    if (twice) return twice.this;
    return inner === body.this ? pred : { not: { ...body, this: inner } };
  }
  if (kind === 'paren') {
    const inner = fold(body.this, ctx);
    const t = truthOf(inner);
    if (t !== undefined) return nodeOf(t);
    return inner === body.this ? pred : { paren: { ...body, this: inner } };
  }
  // A comparison with NULL is NULL whatever the other side; otherwise both sides must be constants.
  const withNull = truthOf(body.left) === null || truthOf(body.right) === null;
  if (!COMPARISONS[kind] || (!withNull && !(isConstant(body.left) && isConstant(body.right)))) return pred;
  const site: Site = { kind, body, dialect: ctx.dialect };
  if (!discharge('simplify-booleans', OBLIGATIONS, site, ctx)) return pred;
  const t = foldComparison(site);
  return t === undefined ? pred : nodeOf(t);
};

/**
 * `simplify-booleans`: folds constant comparisons and AND/OR/NOT with SQL's three-valued logic in WHERE,
 * HAVING, QUALIFY and ON, and drops a WHERE that folded to TRUE.
 *
 * Why results are kept: every step is an identity of three-valued logic — `TRUE AND p` ≡ `p`, `FALSE AND p` ≡
 * FALSE, `TRUE OR p` ≡ TRUE, `NOT NOT p` ≡ `p`, `NULL = 1` ≡ NULL — and a WHERE of TRUE keeps every row.
 * `x = x` is not folded: it is NULL, not TRUE, when x is NULL. Only boolean positions are folded (the clause,
 * and AND/OR/NOT operands of it): a comparison inside a function, CASE value or another comparison keeps its
 * typed value. Obligation `exact-constant-comparison`: a comparison of two constants is folded only when its
 * value is certain (exact decimals; string equality never on MySQL, whose default collation makes
 * `'a' = 'A'` true). Output expressions are never touched.
 *
 * @example `SELECT a FROM t WHERE 1 = 1 AND (b > 2 OR 1 = 0)` → `SELECT a FROM t WHERE b > 2`
 */
export const simplifyBooleans: RewriteRule = {
  name: 'simplify-booleans',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  // Folding needs a constant: TRUE/FALSE/NULL, a NOT to cancel, or a comparison of two literals.
  triggers: ['boolean', 'null', 'not', '@constant-comparison'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const folded = mapPredicates(tree, (p) => fold(p, ctx));
    return mapSelects(folded, (s) => {
      const where = s.where_clause as Record<string, unknown> | null | undefined;
      return where && truthOf(where.this) === true ? { ...s, where_clause: null } : s;
    });
  },
};
