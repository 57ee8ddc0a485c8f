import type { SqlDialect } from '../../sql/dialect.ts';
import { kindOf } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { mapPredicates, mapSelects } from '../selects.ts';
import { FALSE_NODE, NULL_NODE, TRUE_NODE, bodyOf, mapTree } from '../tree-ops.ts';

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

/** Folds a comparison of two constants; string equality only where collation cannot make 'a' = 'A'. */
const foldComparison = (
  kind: string,
  body: Record<string, unknown>,
  dialect: SqlDialect,
): Truth | undefined => {
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

/** One bottom-up pass of three-valued folding over a predicate. */
const fold = (pred: unknown, dialect: SqlDialect): unknown =>
  mapTree(pred, (node, kind) => {
    const body = node[kind] as Record<string, unknown>;
    if (kind === 'and' || kind === 'or') {
      const l = truthOf(body.left);
      const r = truthOf(body.right);
      const absorbing = kind === 'and' ? false : true;
      if (l === absorbing || r === absorbing) return nodeOf(absorbing);
      if (l === !absorbing) return body.right as SqlNode;
      if (r === !absorbing) return body.left as SqlNode;
      if (l === null && r === null) return NULL_NODE;
      return node;
    }
    if (kind === 'not') {
      const t = truthOf(body.this);
      if (t !== undefined) return nodeOf(t === null ? null : !t);
      const inner = bodyOf(body.this, 'not');
      return inner ? (inner.this as SqlNode) : node;
    }
    if (kind === 'paren') {
      const t = truthOf(body.this);
      return t === undefined ? node : nodeOf(t);
    }
    const t = foldComparison(kind, body, dialect);
    return t === undefined ? node : nodeOf(t);
  });

/**
 * `simplify-booleans`: folds constant comparisons and AND/OR/NOT with SQL's three-valued logic in WHERE,
 * HAVING, QUALIFY and ON, and drops a WHERE that folded to TRUE.
 *
 * Why results are kept: every step is an identity of three-valued logic — `TRUE AND p` ≡ `p`, `FALSE AND p` ≡
 * FALSE, `TRUE OR p` ≡ TRUE, `NOT NOT p` ≡ `p`, `NULL = 1` ≡ NULL — and a WHERE of TRUE keeps every row.
 * `x = x` is not folded: it is NULL, not TRUE, when x is NULL. String equality is not folded on MySQL, whose
 * default collation makes `'a' = 'A'` true. Output expressions are never touched.
 *
 * @example `SELECT a FROM t WHERE 1 = 1 AND (b > 2 OR 1 = 0)` → `SELECT a FROM t WHERE b > 2`
 */
export const simplifyBooleans: RewriteRule = {
  name: 'simplify-booleans',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  // Folding needs a constant: TRUE/FALSE/NULL, a NOT to cancel, or a comparison of two literals.
  triggers: ['boolean', 'null', 'not', '@constant-comparison'],
  apply: (tree, ctx) => {
    const folded = mapPredicates(tree, (p) => fold(p, ctx.dialect));
    return mapSelects(folded, (s) => {
      const where = s.where_clause as Record<string, unknown> | null | undefined;
      return where && truthOf(where.this) === true ? { ...s, where_clause: null } : s;
    });
  },
};
