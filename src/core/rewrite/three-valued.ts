import { isRecord, kindOf } from '../sql/tree.ts';
import { MAY_GIVE_NULL, STRICT_FUNCTIONS, STRICT_KINDS } from './strict-functions.ts';
import { bodyOf, columnRef } from './tree-ops.ts';

/**
 * Three-valued abstract evaluation: the set of values an expression can take when some columns are known to
 * be NULL and every other column may hold anything (NULL included). Used to decide null-rejection by
 * evaluating a whole predicate, never by the shape of one operator.
 *
 * A value is described by whether it can be NULL and which non-NULL values it can take (`'any'`, or a finite
 * set of known constants). Everything the evaluator does not model is `TOP` (NULL or anything), so its answer
 * only ever over-approximates: a predicate said not to be able to become TRUE never is.
 */
export type Truth = 'true' | 'false' | 'null';

type Value = { readonly null: boolean; readonly values: 'any' | ReadonlySet<string> };

const TOP: Value = { null: true, values: 'any' };
const NULL_ONLY: Value = { null: true, values: new Set() };
const T = 'b:true';
const F = 'b:false';

/** Whether a column reference is NULL on every row considered (`null`) or may hold anything (`unknown`). */
export type ColumnState = (ref: { name: string; table: string | undefined }) => 'null' | 'unknown';

const nullOnly = (v: Value): boolean => v.null && v.values !== 'any' && v.values.size === 0;
const canBeNonNull = (v: Value): boolean => v.values === 'any' || v.values.size > 0;

const ofTruths = (ts: Iterable<Truth>): Value => {
  const values = new Set<string>();
  let n = false;
  for (const t of ts) {
    if (t === 'null') n = true;
    else values.add(t === 'true' ? T : F);
  }
  return { null: n, values };
};

const truthsOf = (v: Value): Set<Truth> => {
  const out = new Set<Truth>();
  if (v.null) out.add('null');
  if (v.values === 'any') {
    out.add('true');
    out.add('false');
    return out;
  }
  for (const x of v.values) {
    if (x === T) out.add('true');
    else if (x === F) out.add('false');
    else {
      // A number or string read as a truth value (MySQL): either, as far as we know.
      out.add('true');
      out.add('false');
    }
  }
  return out;
};

const union = (a: Value, b: Value): Value => ({
  null: a.null || b.null,
  values: a.values === 'any' || b.values === 'any' ? 'any' : new Set([...a.values, ...b.values]),
});

const and3 = (a: Truth, b: Truth): Truth =>
  a === 'false' || b === 'false' ? 'false' : a === 'null' || b === 'null' ? 'null' : 'true';
const or3 = (a: Truth, b: Truth): Truth =>
  a === 'true' || b === 'true' ? 'true' : a === 'null' || b === 'null' ? 'null' : 'false';
const not3 = (a: Truth): Truth => (a === 'true' ? 'false' : a === 'false' ? 'true' : 'null');

const combine = (a: Value, b: Value, op: (x: Truth, y: Truth) => Truth): Value => {
  const out: Truth[] = [];
  for (const x of truthsOf(a)) for (const y of truthsOf(b)) out.push(op(x, y));
  return ofTruths(out);
};

const NUMBER = /^-?\d+(\.\d+)?$/;

/** A decimal literal without insignificant zeros (`01.50` → `1.5`, `-0.0` → `0`): equal values, one key. */
const canonicalDecimal = (text: string): string => {
  const negative = text.startsWith('-');
  const [int = '0', frac = ''] = text.replace(/^-/, '').split('.');
  const i = int.replace(/^0+(?=\d)/, '');
  const f = frac.replace(/0+$/, '');
  const body = f === '' ? i : `${i}.${f}`;
  return negative && body !== '0' ? `-${body}` : body;
};

/** Exact comparison of two canonical decimals (no floating point): -1, 0 or 1. */
const compareDecimal = (a: string, b: string): number => {
  const scaled = (s: string, scale: number): bigint => {
    const [i = '0', f = ''] = s.split('.');
    return BigInt(i.replace('-', '') + f.padEnd(scale, '0')) * (s.startsWith('-') ? -1n : 1n);
  };
  const scale = Math.max((a.split('.')[1] ?? '').length, (b.split('.')[1] ?? '').length);
  const [x, y] = [scaled(a, scale), scaled(b, scale)];
  return x < y ? -1 : x > y ? 1 : 0;
};

const constantOf = (v: unknown): string | undefined => {
  const neg = bodyOf(v, 'neg');
  if (neg) {
    const inner = constantOf(neg.this);
    return inner?.startsWith('n:')
      ? `n:${canonicalDecimal(`-${inner.slice(2)}`.replace('--', ''))}`
      : undefined;
  }
  const l = bodyOf(v, 'literal');
  if (l && typeof l.value === 'string') {
    if (l.literal_type === 'number' && NUMBER.test(l.value)) return `n:${canonicalDecimal(l.value)}`;
    if (l.literal_type === 'string') return `s:${l.value}`;
    return undefined;
  }
  const b = bodyOf(v, 'boolean');
  return b && typeof b.value === 'boolean' ? (b.value ? T : F) : undefined;
};

const COMPARE: Record<string, ((c: number) => boolean) | undefined> = {
  eq: (c) => c === 0,
  neq: (c) => c !== 0,
  lt: (c) => c < 0,
  lte: (c) => c <= 0,
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
};

/** The truths of `x op y` for two known constants, when certain (numbers; identical strings). */
const compareConstants = (op: string, x: string, y: string): Truth[] | undefined => {
  const test = COMPARE[op];
  if (!test) return undefined;
  if (x.startsWith('n:') && y.startsWith('n:'))
    return [test(compareDecimal(x.slice(2), y.slice(2))) ? 'true' : 'false'];
  // Identical strings are equal under every collation; different ones may be equal under some.
  if (x.startsWith('s:') && y.startsWith('s:') && x === y) return [test(0) ? 'true' : 'false'];
  return undefined;
};

/** A strict comparison: NULL when either side is NULL, else TRUE or FALSE (exact for two constants). */
const comparison = (op: string, a: Value, b: Value): Value => {
  if (nullOnly(a) || nullOnly(b)) return NULL_ONLY;
  const out = new Set<Truth>();
  if (a.null || b.null) out.add('null');
  if (a.values === 'any' || b.values === 'any') return ofTruths([...out, 'true', 'false']);
  for (const x of a.values)
    for (const y of b.values)
      for (const t of compareConstants(op, x, y) ?? (['true', 'false'] as Truth[])) out.add(t);
  return ofTruths(out);
};

/** `a IS NOT DISTINCT FROM b` (never NULL). */
const notDistinct = (a: Value, b: Value): Value => {
  const out = new Set<Truth>();
  if (a.null && b.null) out.add('true');
  if ((a.null && canBeNonNull(b)) || (b.null && canBeNonNull(a))) out.add('false');
  if (canBeNonNull(a) && canBeNonNull(b)) {
    const eq = comparison('eq', { null: false, values: a.values }, { null: false, values: b.values });
    for (const t of truthsOf(eq)) if (t !== 'null') out.add(t);
  }
  return ofTruths(out);
};

const strict = (args: Value[], canProduceNull: boolean): Value =>
  args.some(nullOnly) ? NULL_ONLY : { null: canProduceNull || args.some((a) => a.null), values: 'any' };

/** The expression nodes directly below a node (its arguments), in field order. */
const childNodes = (body: Record<string, unknown>): unknown[] => {
  const out: unknown[] = [];
  for (const k in body) {
    const v = body[k];
    if (Array.isArray(v)) for (const x of v) if (kindOf(x) !== undefined) out.push(x);
    if (kindOf(v) !== undefined) out.push(v);
  }
  return out;
};

/** The possible values of `e` given the column states. */
export const evaluate = (e: unknown, cols: ColumnState): Value => {
  const kind = kindOf(e);
  if (kind === undefined) return TOP;
  const body = (e as Record<string, unknown>)[kind];
  const b = isRecord(body) ? body : undefined;
  const ev = (x: unknown): Value => evaluate(x, cols);
  const c = constantOf(e);
  if (c !== undefined) return { null: false, values: new Set([c]) };
  switch (kind) {
    case 'null':
      return NULL_ONLY;
    case 'column': {
      const ref = columnRef(e);
      return ref && cols(ref) === 'null' ? NULL_ONLY : TOP;
    }
    case 'paren':
      return b ? ev(b.this) : TOP;
    case 'and':
    case 'or':
      return b ? combine(ev(b.left), ev(b.right), kind === 'and' ? and3 : or3) : TOP;
    case 'not':
      return b ? ofTruths([...truthsOf(ev(b.this))].map(not3)) : TOP;
    case 'eq':
    case 'neq':
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
    case 'like':
    case 'i_like':
      return b ? comparison(kind, ev(b.left), ev(b.right)) : TOP;
    case 'null_safe_eq':
    case 'null_safe_neq': {
      if (!b) return TOP;
      const r = notDistinct(ev(b.left), ev(b.right));
      return kind === 'null_safe_eq' ? r : ofTruths([...truthsOf(r)].map(not3));
    }
    case 'is_null': {
      if (!b) return TOP;
      const v = ev(b.this);
      const ts: Truth[] = [];
      if (v.null) ts.push('true');
      if (canBeNonNull(v)) ts.push('false');
      return ofTruths(b.not === true ? ts.map(not3) : ts);
    }
    case 'is_true':
    case 'is_false': {
      if (!b) return TOP;
      const want: Truth = kind === 'is_true' ? 'true' : 'false';
      const ts = [...truthsOf(ev(b.this))].map((t): Truth => (t === want ? 'true' : 'false'));
      return ofTruths(b.not === true ? ts.map(not3) : ts);
    }
    case 'between':
      return b ? between(b, ev) : TOP;
    case 'in':
      return b ? inPredicate(b, ev) : TOP;
    case 'any':
    case 'all': {
      // NULL against an empty set: ANY is FALSE, ALL is TRUE; against a non-empty set: NULL.
      if (!b || !nullOnly(ev(b.this))) return ofTruths(['true', 'false', 'null']);
      return ofTruths([kind === 'any' ? 'false' : 'true', 'null']);
    }
    case 'exists':
      return ofTruths(['true', 'false']);
    case 'coalesce':
      return b && Array.isArray(b.expressions) ? coalesce(b.expressions.map(ev)) : TOP;
    case 'nvl':
      return b ? coalesce([ev(b.this), ev(b.expression)]) : TOP;
    case 'case':
      return b ? caseValue(b, ev) : TOP;
    case 'function': {
      const name = b && typeof b.name === 'string' ? b.name.toLowerCase() : '';
      const args = b && Array.isArray(b.args) ? (b.args as unknown[]) : [];
      if (name === 'nullif' && args.length === 2) {
        const first = ev(args[0]);
        return nullOnly(first) ? NULL_ONLY : { null: true, values: first.values };
      }
      if (b && b.distinct !== true && STRICT_FUNCTIONS.has(name))
        return strict(args.map(ev), MAY_GIVE_NULL.has(name));
      return TOP;
    }
    default:
      if (b && STRICT_KINDS.has(kind)) return strict(childNodes(b).map(ev), MAY_GIVE_NULL.has(kind));
      return TOP;
  }
};

const between = (b: Record<string, unknown>, ev: (x: unknown) => Value): Value => {
  const x = ev(b.this);
  const lo = ev(b.low);
  const hi = ev(b.high);
  const inRange = (l: Value, h: Value) => combine(comparison('gte', x, l), comparison('lte', x, h), and3);
  let r = inRange(lo, hi);
  if (b.symmetric === true) r = combine(r, inRange(hi, lo), or3);
  return b.not === true ? ofTruths([...truthsOf(r)].map(not3)) : r;
};

const inPredicate = (b: Record<string, unknown>, ev: (x: unknown) => Value): Value => {
  const x = ev(b.this);
  let r: Value;
  if (b.query !== null && b.query !== undefined) {
    // Against a subquery: an empty result gives FALSE; a non-empty one TRUE, FALSE or NULL.
    r = nullOnly(x) ? ofTruths(['false', 'null']) : ofTruths(['true', 'false', 'null']);
  } else if (Array.isArray(b.expressions) && b.expressions.length > 0 && !b.unnest) {
    r = b.expressions
      .map((item: unknown) => comparison('eq', x, ev(item)))
      .reduce((acc, v) => combine(acc, v, or3));
  } else return ofTruths(['true', 'false', 'null']);
  return b.not === true ? ofTruths([...truthsOf(r)].map(not3)) : r;
};

const coalesce = (args: Value[]): Value => {
  let out: Value = { null: false, values: new Set() };
  for (const a of args) {
    out = union(out, { null: false, values: a.values });
    if (!a.null) return out;
  }
  return { ...out, null: true };
};

const caseValue = (b: Record<string, unknown>, ev: (x: unknown) => Value): Value => {
  const operand = b.operand === null || b.operand === undefined ? undefined : ev(b.operand);
  let out: Value = { null: false, values: new Set() };
  let reachable = true;
  for (const w of Array.isArray(b.whens) ? b.whens : []) {
    if (!Array.isArray(w) || w.length !== 2) return TOP;
    const cond = operand === undefined ? ev(w[0]) : comparison('eq', operand, ev(w[0]));
    const ts = truthsOf(cond);
    if (reachable && ts.has('true')) out = union(out, ev(w[1]));
    reachable = reachable && (ts.has('false') || ts.has('null'));
  }
  if (reachable) out = union(out, b.else_ === null || b.else_ === undefined ? NULL_ONLY : ev(b.else_));
  return out;
};

/** The truth values a predicate can take (a WHERE keeps a row only on TRUE). */
export const possibleTruths = (pred: unknown, cols: ColumnState): Set<Truth> =>
  truthsOf(evaluate(pred, cols));
