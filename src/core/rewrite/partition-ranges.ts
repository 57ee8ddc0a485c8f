import { isRecord } from '../sql/tree.ts';
import type { Statement } from '../sql/tree.ts';
import { dateLiteral } from './date-literals.ts';
import { clausePredicate, sourcesOf } from './selects.ts';
import type { SelectBody } from './selects.ts';
import { bodyOf, columnRef, conjuncts, someNode } from './tree-ops.ts';

export type DateRange = { from?: string; to?: string; fromInclusive: boolean; toInclusive: boolean };

const FLIP: Record<string, string> = { lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte', eq: 'eq' };

/** Narrows `r` by `col op value`. */
const narrow = (r: DateRange, op: string, v: string): DateRange => {
  const lower = (inc: boolean): DateRange =>
    r.from === undefined || v > r.from || (v === r.from && !inc) ? { ...r, from: v, fromInclusive: inc } : r;
  const upper = (inc: boolean, base: DateRange): DateRange =>
    base.to === undefined || v < base.to || (v === base.to && !inc)
      ? { ...base, to: v, toInclusive: inc }
      : base;
  switch (op) {
    case 'gt':
      return lower(false);
    case 'gte':
      return lower(true);
    case 'lt':
      return upper(false, r);
    case 'lte':
      return upper(true, r);
    case 'eq':
      return upper(true, lower(true));
    default:
      return r;
  }
};

const rangeIn = (s: SelectBody, alias: string, column: string, sole: boolean): DateRange | undefined => {
  const where = clausePredicate(s.where_clause);
  const onColumn = (v: unknown): boolean => {
    const ref = columnRef(v);
    return (
      ref !== undefined && ref.name === column && (ref.table === alias || (ref.table === undefined && sole))
    );
  };
  let r: DateRange = { fromInclusive: false, toInclusive: false };
  let restricted = false;
  for (const p of where === undefined ? [] : conjuncts(where)) {
    for (const op of Object.keys(FLIP)) {
      const b = bodyOf(p, op);
      if (!b) continue;
      const [v, o] = onColumn(b.left)
        ? [dateLiteral(b.right), op]
        : onColumn(b.right)
          ? [dateLiteral(b.left), FLIP[op] ?? op]
          : [];
      if (v !== undefined && o !== undefined) {
        r = narrow(r, o, v);
        restricted = true;
      }
    }
    const between = bodyOf(p, 'between');
    if (between && between.not !== true && onColumn(between.this)) {
      const [lo, hi] = [dateLiteral(between.low), dateLiteral(between.high)];
      if (lo !== undefined) r = narrow(r, 'gte', lo);
      if (hi !== undefined) r = narrow(r, 'lte', hi);
      restricted ||= lo !== undefined || hi !== undefined;
    }
  }
  return restricted ? r : undefined;
};

/**
 * The date ranges that WHERE predicates on the bare partition column restrict each scan of `tableName` to:
 * one range per scan, or undefined when some scan is unrestricted (then the whole table is billed). Only
 * top-level ANDed conjuncts of the SELECT that scans the table count, and only where the table is a FROM or
 * inner-joined item (the null-supplying side of an outer join is read whole). Used by the BigQuery byte
 * model to bill only the partitions a query selects.
 *
 * @example constantRangesOn(parse("SELECT 1 FROM orders WHERE o_orderdate >= '1995-01-01'"), 'orders', 'o_orderdate')
 *   // [{ from: '1995-01-01', fromInclusive: true, toInclusive: false }]
 */
export const constantRangesOn = (
  stmt: Statement,
  tableName: string,
  column: string,
): DateRange[] | undefined => {
  const table = tableName.toLowerCase();
  const col = column.toLowerCase();
  const ranges: DateRange[] = [];
  let unrestricted = false;
  someNode(stmt, (n, k) => {
    if (k !== 'select') return false;
    const s = n.select as SelectBody;
    const sources = sourcesOf(s);
    const scans = sources?.filter((x) => x.table === table) ?? [];
    if (!sources) {
      const direct = someNode(
        s.from,
        (m, mk) =>
          mk === 'table' && columnRef({ column: { name: bodyOf(m, 'table')?.name } })?.name === table,
        (_m, mk) => mk !== 'subquery',
      );
      if (direct) unrestricted = true;
      return false;
    }
    for (const scan of scans) {
      const join = scan.joinIndex >= 0 ? (s.joins as unknown[])[scan.joinIndex] : undefined;
      const kind = isRecord(join) ? String(join.kind) : 'From';
      const r =
        kind === 'From' || kind === 'Inner' || kind === 'Cross'
          ? rangeIn(s, scan.alias, col, sources.length === 1)
          : undefined;
      if (r === undefined) unrestricted = true;
      else ranges.push(r);
    }
    return false;
  });
  return unrestricted || ranges.length === 0 ? undefined : ranges;
};
