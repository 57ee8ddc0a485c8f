import type { SqlDialect } from '../sql/dialect.ts';
import type { Statement } from '../sql/tree.ts';
import { dateLiteral } from './date-literals.ts';
import recorded from './measured-regressions.json' with { type: 'json' };
import { clausePredicate } from './selects.ts';
import { bodyOf, conjuncts, sameNode, someNode } from './tree-ops.ts';

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
 * The shapes the gate can recognise on a new query, by rule: a measured regression names one (its `case`), and
 * the gate then withholds the rule's change wherever the change is of that shape. A shape is a property of the
 * change (`before` → `after` of the rule's step), never a query's identity.
 */
export type Shape = {
  readonly rule: string;
  /** What the shape is, in one sentence. */
  readonly describe: string;
  readonly applies: (before: Statement, after: Statement) => boolean;
};

/** Scalar subqueries standing in select lists (not in WHERE / HAVING / ON), over the whole tree. */
const selectListSubqueries = (tree: unknown): number => {
  let n = 0;
  someNode(tree, (node, kind) => {
    if (kind !== 'select') return false;
    const items = bodyOf(node, 'select')?.expressions;
    someNode(items, (_x, k) => {
      if (k === 'subquery') n++;
      return false;
    });
    return false;
  });
  return n;
};

const COMPARISONS = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'like', 'in', 'between']);
const isConstant = (v: unknown): boolean =>
  bodyOf(v, 'literal') !== undefined ||
  bodyOf(v, 'boolean') !== undefined ||
  (bodyOf(v, 'neg') !== undefined && isConstant(bodyOf(v, 'neg')?.this)) ||
  (bodyOf(v, 'cast') !== undefined && isConstant(bodyOf(v, 'cast')?.this));

/** A conjunct comparing a column with constants only (`p_size = 15`, `p_type LIKE '%BRASS'`, `x IN (1, 2)`). */
const constantFilter = (c: unknown): boolean => {
  for (const k of COMPARISONS) {
    const b = bodyOf(c, k);
    if (!b) continue;
    const left = b.this ?? b.left;
    if (bodyOf(left, 'column') === undefined) return false;
    const others = [
      b.right,
      b.expression,
      b.low,
      b.high,
      ...(Array.isArray(b.expressions) ? (b.expressions as unknown[]) : []),
    ];
    const present = others.filter((o) => o !== undefined && o !== null);
    return present.length > 0 && present.every(isConstant);
  }
  return false;
};

/** Scalar subqueries compared in a WHERE (`x < (SELECT …)`), with the SELECT holding them and its depth. */
const whereSubqueries = (tree: unknown): Array<{ select: Record<string, unknown>; nested: boolean }> => {
  const out: Array<{ select: Record<string, unknown>; nested: boolean }> = [];
  const visit = (v: unknown, depth: number): void => {
    someNode(
      v,
      (node, kind) => {
        if (kind !== 'select') return false;
        const body = bodyOf(node, 'select') as Record<string, unknown>;
        for (const c of conjuncts(clausePredicate(body.where_clause)))
          for (const k of COMPARISONS) {
            const b = bodyOf(c, k);
            if (b && [b.left, b.right, b.this, b.expression].some((x) => bodyOf(x, 'subquery') !== undefined))
              out.push({ select: body, nested: depth > 0 });
          }
        // The SELECTs below this one (its subqueries, derived tables) one level deeper.
        visit(Object.values(body), depth + 1);
        return false;
      },
      (_node, kind) => kind !== 'select',
    );
  };
  visit(tree, 0);
  return out;
};

/**
 * Whether `before` holds a WHERE comparison with a scalar subquery whose SELECT reads few rows by the look of
 * it: two or more conjuncts filtering columns by constants, or a SELECT that is itself a subquery.
 */
const selectiveOuter = (tree: unknown): boolean =>
  whereSubqueries(tree).some(
    ({ select, nested }) =>
      nested || conjuncts(clausePredicate(select.where_clause)).filter(constantFilter).length >= 2,
  );

/** IN lists whose items are all string literals, over the whole tree (as text, to compare two trees). */
const stringInLists = (tree: unknown): number => {
  let n = 0;
  someNode(tree, (node, kind) => {
    if (kind !== 'in') return false;
    const items = bodyOf(node, 'in')?.expressions;
    if (
      Array.isArray(items) &&
      items.length > 0 &&
      items.every((i) => bodyOf(i, 'literal')?.literal_type === 'string')
    )
      n++;
    return false;
  });
  return n;
};

export const SHAPES: Readonly<Record<string, Shape>> = {
  'string-in-list': {
    rule: 'or-to-in',
    describe: 'the change builds an IN list of string constants from OR-ed equalities',
    applies: (before, after) => stringInLists(after) > stringInLists(before),
  },
  'selective-outer': {
    rule: 'correlated-aggregate-to-join',
    describe:
      'the change joins a grouped aggregate in place of a correlated subquery of a WHERE whose SELECT reads few rows by the look of it (two or more conjuncts filtering by constants, or itself a subquery): a few index probes beat grouping the whole inner table',
    applies: (before, after) =>
      whereSubqueries(after).length < whereSubqueries(before).length && selectiveOuter(before),
  },
  'select-list-subquery': {
    rule: 'correlated-aggregate-to-join',
    describe:
      'the change replaces a correlated aggregate subquery of a select list by a grouped LEFT JOIN (read per output row, the subquery is an index lookup on few rows; the join groups the whole inner table)',
    applies: (before, after) => selectListSubqueries(after) < selectListSubqueries(before),
  },
  'wide-date-range': {
    rule: 'sargable-dates',
    describe: 'the date ranges the change adds cover more than a year in all (OR-ed ranges add up)',
    applies: (before, after) => addedRangeDays(before, after) > 366,
  },
};

/** One measured slow-down behind an entry: what the bench saw (bench/real-savings, `--write-gate`). */
export type Evidence = {
  readonly query: string;
  readonly engine: string;
  /** Median wall times (null: recorded by hand from a report that gave only the ratio). */
  readonly beforeMs: number | null;
  readonly afterMs: number | null;
  /** Median of the per-round ratios after / before, and the sign test's 95 % interval (null: not computed). */
  readonly ratio: number;
  readonly low: number | null;
  readonly high: number | null;
  readonly pairs: number;
  readonly scale: number;
  readonly at: string;
};

export type RecordedRegression = {
  readonly rule: string;
  readonly case: string;
  readonly dialects: readonly SqlDialect[];
  readonly measured: string;
  readonly evidence: readonly Evidence[];
};

/**
 * measured-regressions.json: the regressions bench/real-savings measured with confidence (`--write-gate` adds
 * its evidence; an entry leaves the file only by hand, after a measurement without the gate shows the change
 * no longer slower). `unshaped` lists regressions no shape of the rules applied recognises: they need a shape
 * here (or a better rule) before the gate can withhold them.
 */
export type RecordedFile = {
  readonly regressions: readonly RecordedRegression[];
  readonly unshaped: ReadonlyArray<{ readonly query: string; readonly rules: readonly string[] } & Evidence>;
};

export const RECORDED = recorded as RecordedFile;

/**
 * The measured regressions, from measured-regressions.json: each entry whose case is a shape of its rule. The
 * first, by hand from the first runs (demo TPC-H at scale 1, B-tree indexes on the date columns): a range over
 * two years of seven — `YEAR(l_shipdate) BETWEEN 1994 AND 1995`, `EXTRACT(YEAR FROM o_orderdate) IN (1993,
 * 1997)` — made PostgreSQL take bitmap index scans and MariaDB index range scans over 30 % of the table,
 * slower than the scan with the function (PostgreSQL +35 %, MariaDB +10–50 %, across runs), while ranges of a
 * year or less paid (MariaDB −41 % rows read).
 */
export const MEASURED_REGRESSIONS: readonly MeasuredRegression[] = RECORDED.regressions.flatMap((r) => {
  const shape = SHAPES[r.case];
  return shape && shape.rule === r.rule
    ? [{ rule: r.rule, case: r.case, dialects: r.dialects, measured: r.measured, applies: shape.applies }]
    : [];
});

/** The measured regression the change of `rule` from `before` to `after` falls under on this dialect, if any. */
export const measuredRegression = (
  dialect: SqlDialect,
  rule: string,
  before: Statement,
  after: Statement,
  table: readonly MeasuredRegression[] = MEASURED_REGRESSIONS,
): MeasuredRegression | undefined =>
  table.find((m) => m.rule === rule && m.dialects.includes(dialect) && m.applies(before, after));
