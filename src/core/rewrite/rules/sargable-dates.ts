import type { ColumnType } from '../../catalog.ts';
import { isRecord } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import { columnTypeIn, cteNames } from '../column-types.ts';
import { addDays, dateLiteral, integerLiteral, unitRange } from '../date-literals.ts';
import type { TruncUnit } from '../date-literals.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { clausePredicate, mapSelects } from '../selects.ts';
import type { SelectBody } from '../selects.ts';
import { binary, bodyOf, columnRef, mapTree, stringLiteral } from '../tree-ops.ts';
import { intervalShift, paren, unwrapAndParens } from '../sargable-shapes.ts';

/** A function of a bare column whose preimage of one value is a half-open range of the column. */
type Bucketing = {
  readonly column: SqlNode;
  /** The [from, to) range of column values that map to the constant, or undefined when not exact. */
  readonly range: (constant: unknown) => [string, string] | undefined;
  /** DATE(d) of a DATE column is d itself: compare the column directly. */
  readonly identity: boolean;
};

type TypeOf = (col: unknown) => ColumnType | undefined;
const TEMPORAL = new Set<ColumnType>(['date', 'timestamp']);
const UNITS = new Set(['day', 'month', 'quarter', 'year']);

/** One comparison of a function of a column (or a shifted column) with constants. */
type Site = { readonly column: SqlNode; readonly typeOf: TypeOf; readonly exact: boolean };

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'date-or-timestamp-column',
    needs: ['types'],
    text: 'the catalog says the bare column is DATE or TIMESTAMP without time zone (TIMESTAMPTZ day boundaries follow the session time zone; a string column would be parsed)',
    holds: ({ column, typeOf }) => TEMPORAL.has(typeOf(column) ?? 'other'),
  },
  {
    id: 'exact-preimage',
    needs: ['types'],
    text: "the set of column values the comparison keeps is exactly the range written: the constant is a valid date aligned to the unit (an integer year for EXTRACT/YEAR), and a shift is exactly a whole number of days (days and weeks of any sign, PostgreSQL's 'ago' negating; never hours, minutes or months, whose arithmetic is not an exact shift of a date) landing on a valid date",
    holds: ({ exact }) => exact,
  },
];

const bareTemporal = (v: unknown): SqlNode | undefined => (columnRef(v) ? (v as SqlNode) : undefined);

const dayRange = (c: unknown): [string, string] | undefined => {
  const d = dateLiteral(c);
  return d === undefined ? undefined : [d, addDays(d, 1)];
};

/** Recognises DATE(c), CAST(c AS DATE), TO_DATE(c), EXTRACT(YEAR FROM c), YEAR(c), DATE_TRUNC(unit, c). */
const bucketing = (e: unknown, typeOf: TypeOf): Bucketing | undefined => {
  const fn = bodyOf(e, 'function');
  const name = typeof fn?.name === 'string' ? fn.name.toLowerCase() : undefined;
  const args = Array.isArray(fn?.args) ? (fn.args as unknown[]) : [];
  const cast = bodyOf(e, 'cast');
  const toDate =
    (name === 'date' || name === 'to_date') && args.length === 1
      ? args[0]
      : cast && isRecord(cast.to) && cast.to.data_type === 'date' && !cast.format
        ? cast.this
        : undefined;
  if (toDate !== undefined) {
    const column = bareTemporal(toDate);
    if (!column) return undefined;
    return { column, range: dayRange, identity: typeOf(column) === 'date' };
  }
  const extract = bodyOf(e, 'extract');
  const year = bodyOf(e, 'year');
  const yearOf = extract && String(extract.field).toLowerCase() === 'year' ? extract.this : year?.this;
  if (yearOf !== undefined) {
    const column = bareTemporal(yearOf);
    if (!column) return undefined;
    const range = (c: unknown): [string, string] | undefined => {
      const y = integerLiteral(c);
      return y === undefined || y < 1000 || y > 9998 ? undefined : [`${y}-01-01`, `${y + 1}-01-01`];
    };
    return { column, range, identity: false };
  }
  if (name === 'date_trunc' && args.length === 2) {
    const unitNode = bodyOf(args[0], 'literal') ? args[0] : args[1];
    const target = unitNode === args[0] ? args[1] : args[0];
    const lit = bodyOf(unitNode, 'literal') ?? bodyOf(unitNode, 'var');
    const raw = lit?.value ?? lit?.this;
    const unit = typeof raw === 'string' ? raw.toLowerCase() : '';
    const column = bareTemporal(target);
    if (!column || !UNITS.has(unit)) return undefined;
    const range = (c: unknown): [string, string] | undefined => {
      const d = dateLiteral(c);
      return d === undefined ? undefined : unitRange(d, unit as TruncUnit);
    };
    return { column, range, identity: false };
  }
  return undefined;
};

const FLIP: Record<string, string> = { eq: 'eq', lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte', neq: 'neq' };

/** `f(c) op k` as a range on c; undefined when not exact. */
const rangeCompare = (b: Bucketing, op: string, k: unknown): SqlNode | undefined => {
  const r = b.range(k);
  if (!r) return undefined;
  const c = b.column;
  if (b.identity && op !== 'neq') return binary(op, c, stringLiteral(r[0]));
  const [from, to] = r;
  switch (op) {
    case 'eq':
      return paren(binary('and', binary('gte', c, stringLiteral(from)), binary('lt', c, stringLiteral(to))));
    case 'lt':
      return binary('lt', c, stringLiteral(from));
    case 'gte':
      return binary('gte', c, stringLiteral(from));
    case 'lte':
      return binary('lt', c, stringLiteral(to));
    case 'gt':
      return binary('gte', c, stringLiteral(to));
    default:
      return undefined;
  }
};

/** `c + n days op k` as `c op k - n days`: adding whole days is a bijection on dates and timestamps. */
const shiftCompare = (
  shift: { column: SqlNode; days: number | undefined },
  op: string,
  k: unknown,
): SqlNode | undefined => {
  const d = dateLiteral(k);
  const shifted = d === undefined || shift.days === undefined ? undefined : addDays(d, -shift.days);
  if (shifted === undefined || dateLiteral(stringLiteral(shifted)) === undefined) return undefined;
  return binary(op, shift.column, stringLiteral(shifted));
};

/** The comparison rewritten as a range on the bare column once the site's obligations hold. */
const proven = (column: SqlNode, out: SqlNode | undefined, typeOf: TypeOf, ctx: RuleContext): boolean =>
  discharge(sargableDates.name, OBLIGATIONS, { column, typeOf, exact: out !== undefined }, ctx);

const rewriteComparison = (node: SqlNode, kind: string, typeOf: TypeOf, ctx: RuleContext): SqlNode => {
  const body = node[kind] as Record<string, unknown>;
  if (FLIP[kind] !== undefined) {
    for (const [e, k, op] of [
      [body.left, body.right, kind],
      [body.right, body.left, FLIP[kind]],
    ] as const) {
      const b = bucketing(e, typeOf);
      const shift = b ? undefined : intervalShift(e);
      if (!b && !shift) continue;
      const column = (b?.column ?? shift?.column) as SqlNode;
      const out = b ? rangeCompare(b, op, k) : shift && shiftCompare(shift, op, k);
      return proven(column, out, typeOf, ctx) && out ? out : node;
    }
    return node;
  }
  if (kind === 'between' && body.not !== true && body.symmetric !== true) {
    const b = bucketing(body.this, typeOf);
    if (!b) return node;
    const lo = b.range(body.low);
    const hi = b.range(body.high);
    const c = b.column;
    const out =
      lo && hi
        ? paren(binary('and', binary('gte', c, stringLiteral(lo[0])), binary('lt', c, stringLiteral(hi[1]))))
        : undefined;
    return proven(c, out, typeOf, ctx) && out ? out : node;
  }
  if (kind === 'in' && body.not !== true && Array.isArray(body.expressions) && !body.query) {
    const b = bucketing(body.this, typeOf);
    if (!b || body.expressions.length === 0) return node;
    const parts = body.expressions.map((k: unknown) => rangeCompare(b, 'eq', k));
    const out = parts.some((p) => p === undefined)
      ? undefined
      : paren(parts.slice(1).reduce((acc: unknown, p) => binary('or', acc, p), parts[0]));
    return proven(b.column, out, typeOf, ctx) && out ? out : node;
  }
  return node;
};

const rewriteSelect = (s: SelectBody, typeOf: TypeOf, ctx: RuleContext): SelectBody => {
  const fix = (pred: unknown): unknown => {
    const next = mapTree(pred, (n, k) => rewriteComparison(n, k, typeOf, ctx));
    return next === pred ? pred : unwrapAndParens(next);
  };
  let out: SelectBody | undefined;
  for (const field of ['where_clause', 'having'] as const) {
    const pred = clausePredicate(s[field]);
    if (pred === undefined) continue;
    const next = fix(pred);
    if (next !== pred) (out ??= { ...s })[field] = { ...(s[field] as object), this: next };
  }
  if (Array.isArray(s.joins)) {
    const joins = s.joins.map((j: unknown) => {
      const on = (j as Record<string, unknown>).on;
      const next = on === null || on === undefined ? on : fix(on);
      return next === on ? j : { ...(j as object), on: next };
    });
    if (joins.some((j, i) => j !== (s.joins as unknown[])[i])) (out ??= { ...s }).joins = joins;
  }
  return out ?? s;
};

/**
 * `sargable-dates`: turns a function of a date/timestamp column compared with constants into a range on the
 * bare column, so partitions and indexes prune: `DATE(ts) = d`, `CAST(ts AS DATE) = d`, `TO_DATE(ts) = d`,
 * `EXTRACT(YEAR FROM d) = y` / `YEAR(d) = y`, `DATE_TRUNC(unit, d) = x` (also <, <=, >, >=, BETWEEN, IN),
 * and `d + INTERVAL n DAY op c` (and the BigQuery/MySQL/Snowflake spellings of adding days).
 *
 * Why results are kept: each function is monotone and the set of column values it maps to a constant is
 * exactly one half-open range (a day, a year, the unit starting at x), so `f(c) = k` ⇔ `c ∈ [from, to)`,
 * `f(c) < k` ⇔ `c < from`, `f(c) <= k` ⇔ `c < to`, and so on; NULL maps to NULL on both sides. Adding whole
 * days is a bijection. Obligations: `date-or-timestamp-column` (the catalog says DATE or TIMESTAMP, never
 * TIMESTAMPTZ, whose day boundaries depend on the session time zone) and `exact-preimage` (the constant is a
 * valid date aligned to the unit — `DATE_TRUNC('month', d) = '2024-03-15'` is always false and is left
 * alone — and a shift is exactly whole days: `INTERVAL '1 day 12 hours'` has a sub-day part, `'1 day ago'` is
 * minus one day, and months are never shifted, since adding a month is not invertible: Jan 29–31 + 1 month
 * are all Feb 29).
 *
 * @example `WHERE EXTRACT(YEAR FROM o_orderdate) = 1995` → `WHERE o_orderdate >= '1995-01-01' AND o_orderdate < '1996-01-01'`
 */
export const sargableDates: RewriteRule = {
  name: 'sargable-dates',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  // The kinds `bucketing` and `intervalShift` read: no such node, nothing to rewrite.
  triggers: ['function', 'cast', 'extract', 'year', 'interval'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const ctes = cteNames(tree);
    return mapSelects(tree, (s) => rewriteSelect(s, (col) => columnTypeIn(s, col, ctx.catalog, ctes), ctx));
  },
};
