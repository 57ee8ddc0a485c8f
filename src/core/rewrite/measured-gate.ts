import type { SqlDialect } from '../sql/dialect.ts';
import type { Statement } from '../sql/tree.ts';
import { dateLiteral } from './date-literals.ts';
import { bodyOf, sameNode, someNode } from './tree-ops.ts';

/**
 * A (rule, case) that bench/real-savings measured slower on a real engine of these dialects: the engine does
 * not apply the rule's change there when `applies` says the change is of that case. Entries come from the
 * measurement (its README names the queries and figures), not from guesses; the cost models cannot see them
 * (they price bytes and rows, and the rows read did not change).
 */
export type MeasuredRegression = {
  readonly rule: string;
  /** kebab-case name of the case. */
  readonly case: string;
  readonly dialects: readonly SqlDialect[];
  /** What was measured, in one sentence. */
  readonly measured: string;
  readonly applies: (before: Statement, after: Statement) => boolean;
};

const DAY_MS = 86_400_000;

/** `c >= 'd1' AND c < 'd2'` (as sargable-dates and date-text-prefix write a range): its column and span in days. */
const dateRange = (v: unknown): { column: unknown; days: number } | undefined => {
  const and = bodyOf(v, 'and');
  const lo = and && bodyOf(and.left, 'gte');
  const hi = and && bodyOf(and.right, 'lt');
  if (!lo || !hi || !sameNode(lo.left, hi.left)) return undefined;
  const [from, to] = [dateLiteral(lo.right), dateLiteral(hi.right)];
  if (from === undefined || to === undefined) return undefined;
  return { column: lo.left, days: (Date.parse(to) - Date.parse(from)) / DAY_MS };
};

const rangesOf = (tree: unknown): string[] => {
  const out: string[] = [];
  someNode(tree, (n) => {
    const r = dateRange(n);
    if (r)
      out.push(
        JSON.stringify({ c: r.column, d: r.days, n }, (k, v: unknown) => (k === 'span' ? undefined : v)),
      );
    return false;
  });
  return out;
};

/** Days covered by the date ranges `after` holds that `before` did not (ranges OR-ed together add up). */
export const addedRangeDays = (before: Statement, after: Statement): number => {
  const had = new Set(rangesOf(before));
  return rangesOf(after)
    .filter((r) => !had.has(r))
    .reduce((sum, r) => sum + (JSON.parse(r) as { d: number }).d, 0);
};

/**
 * The measured regressions. bench/real-savings (demo TPC-H at scale 1, B-tree indexes on the date columns):
 * a range over two years of seven — `YEAR(l_shipdate) BETWEEN 1994 AND 1995`, `EXTRACT(YEAR FROM o_orderdate)
 * IN (1993, 1997)` — made PostgreSQL take bitmap index scans and MariaDB index range scans over 30 % of the
 * table, slower than the scan with the function (PostgreSQL +35 %, MariaDB +10–50 %, across runs), while
 * ranges of a year or less paid (MariaDB −41 % rows read).
 */
export const MEASURED_REGRESSIONS: readonly MeasuredRegression[] = [
  {
    rule: 'sargable-dates',
    case: 'wide-date-range',
    dialects: ['postgres', 'mysql'],
    measured:
      'ranges covering more than a year in all made row stores with a date index slower (index scans over ~30 % of the table)',
    applies: (before, after) => addedRangeDays(before, after) > 366,
  },
];

/** The measured regression the change of `rule` from `before` to `after` falls under on this dialect, if any. */
export const measuredRegression = (
  dialect: SqlDialect,
  rule: string,
  before: Statement,
  after: Statement,
  table: readonly MeasuredRegression[] = MEASURED_REGRESSIONS,
): MeasuredRegression | undefined =>
  table.find((m) => m.rule === rule && m.dialects.includes(dialect) && m.applies(before, after));
