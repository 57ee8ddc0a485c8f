import { isRecord } from '../tree.ts';
import { fnNode, numberValue, payloadOf } from './nodes.ts';
import type { Call, LocalRule, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse, replaceWith } from './types.ts';

/** Aggregates (and window functions) the library translates faithfully everywhere (the corpus shows each). */
const AGGREGATES: LocalRule = {
  kinds: [
    'count',
    'sum',
    'avg',
    'min',
    'max',
    'stddev',
    'stddev_samp',
    'stddev_pop',
    'variance',
    'var_samp',
    'var_pop',
    'any_value',
  ],
  names: [
    'COUNT',
    'SUM',
    'AVG',
    'MIN',
    'MAX',
    'STDDEV',
    'STDDEV_SAMP',
    'STDDEV_POP',
    'VARIANCE',
    'VAR_SAMP',
    'VAR_POP',
    'ANY_VALUE',
  ],
  family: 'aggregates',
};

/** Grouping extensions, kept as the library writes them. */
const GROUPING: LocalRule = {
  kinds: ['grouping'],
  names: ['ROLLUP', 'CUBE', 'GROUPING SETS', 'GROUPING'],
  family: 'aggregates',
};

const WINDOW: LocalRule = {
  kinds: [
    'row_number',
    'rank',
    'dense_rank',
    'n_tile',
    'lead',
    'lag',
    'first_value',
    'last_value',
    'nth_value',
    'percent_rank',
    'cume_dist',
  ],
  names: [
    'ROW_NUMBER',
    'RANK',
    'DENSE_RANK',
    'NTILE',
    'LEAD',
    'LAG',
    'FIRST_VALUE',
    'LAST_VALUE',
    'NTH_VALUE',
    'PERCENT_RANK',
    'CUME_DIST',
  ],
  family: 'window-functions',
};

const booleanAggregates = (...names: string[]): LocalRule => ({
  kinds: ['logical_and', 'logical_or'],
  names,
  family: 'aggregates',
});

/**
 * Approximate counts run exactly: an exact answer is within any documented error, and DuckDB's own HyperLogLog
 * is far coarser (1,232 for 1,000 distinct values) than BigQuery's HLL++ or Snowflake's.
 */
const exactDistinct = (c: Call): Translation => {
  const value = c.kind === 'aggregate_function' ? c.args[0] : c.payload.this;
  if (c.ctx.inWindow) return refuse(`${c.name} as a window function is not supported in local mode`);
  return duckdb('count(DISTINCT {0})', value);
};

/** BigQuery APPROX_QUANTILES(x, n): the n + 1 boundaries, here exact (quantile_disc: values of the input). */
const approxQuantiles = (c: Call): Translation => {
  const n = numberValue(c.args[1]);
  if (c.args.length !== 2 || n === undefined || !Number.isInteger(n) || n < 1 || n > 1000)
    return refuse('APPROX_QUANTILES needs a constant number of quantiles in local mode');
  const qs = Array.from({ length: n + 1 }, (_, i) => String(i / n));
  const distinct = c.payload.distinct === true ? 'DISTINCT ' : '';
  return duckdb(`quantile_disc(${distinct}{0}, [${qs.join(', ')}])`, c.args[0]);
};

/** BigQuery APPROX_TOP_COUNT(x, n), here exact: the n most frequent values with their counts. */
const approxTopCount = (c: Call): Translation => {
  const n = numberValue(c.args[1]);
  if (n === undefined || !Number.isInteger(n) || n < 1)
    return refuse('APPROX_TOP_COUNT needs a constant count');
  return duckdb(
    `list_transform(list_slice(list_reverse_sort(list_transform(map_entries(histogram({0})), sg_e -> {'c': sg_e.value, 'v': sg_e.key})), 1, ${n}), sg_e -> {'value': sg_e.v, 'count': sg_e.c})`,
    c.args[0],
  );
};

/**
 * Snowflake RATIO_TO_REPORT(x) OVER (w): x / SUM(x) OVER (w), NULL when the sum is 0. DuckDB has no such
 * window function.
 */
const ratioToReport = (c: Call): Translation => {
  const fn = c.payload.this;
  const p = payloadOf(fn);
  if (
    !isRecord(fn) ||
    !isRecord(fn.function) ||
    p === undefined ||
    String(p.name).toUpperCase() !== 'RATIO_TO_REPORT'
  )
    return keep;
  const x: unknown = Array.isArray(p.args) ? (p.args as unknown[])[0] : undefined;
  if (x === undefined) return refuse('RATIO_TO_REPORT takes one argument');
  const total = { window_function: { ...c.payload, this: fnNode('SUM', [x as never]) } };
  return replaceWith({
    div: { left: x, right: fnNode('NULLIF', [total, { literal: { literal_type: 'number', value: '0' } }]) },
  });
};

export const AGGREGATE_RULES: RuleSet = {
  bigquery: [AGGREGATES, GROUPING, WINDOW, booleanAggregates('LOGICAL_AND', 'LOGICAL_OR')],
  snowflake: [
    AGGREGATES,
    GROUPING,
    WINDOW,
    booleanAggregates('BOOLAND_AGG', 'BOOLOR_AGG'),
    {
      kinds: ['median', 'mode'],
      names: ['MEDIAN', 'MODE', 'PERCENTILE_CONT', 'PERCENTILE_DISC'],
      family: 'aggregates',
    },
    {
      kinds: ['window_function'],
      names: ['RATIO_TO_REPORT'],
      family: 'window-functions',
      why: 'DuckDB has no RATIO_TO_REPORT',
      translate: ratioToReport,
    },
  ],
  postgres: [
    AGGREGATES,
    GROUPING,
    WINDOW,
    booleanAggregates('BOOL_AND', 'BOOL_OR', 'EVERY'),
    { kinds: ['mode'], names: ['MODE', 'PERCENTILE_CONT', 'PERCENTILE_DISC'], family: 'aggregates' },
  ],
};

export const APPROXIMATE: RuleSet = {
  bigquery: [
    {
      kinds: ['approx_count_distinct'],
      names: ['APPROX_COUNT_DISTINCT'],
      family: 'approximate',
      why: "DuckDB's HyperLogLog is off by over 20 % at a thousand values",
      translate: exactDistinct,
    },
    {
      names: ['APPROX_QUANTILES'],
      family: 'approximate',
      why: "the library's approx_quantile interpolates (6 instead of 5 in the documented example)",
      translate: approxQuantiles,
    },
    {
      names: ['APPROX_TOP_COUNT'],
      family: 'approximate',
      why: 'DuckDB has no APPROX_TOP_COUNT',
      translate: approxTopCount,
    },
  ],
  snowflake: [
    {
      kinds: ['approx_count_distinct'],
      names: ['APPROX_COUNT_DISTINCT', 'HLL'],
      family: 'approximate',
      why: "DuckDB's HyperLogLog is off by over 20 % at a thousand values; DuckDB has no HLL",
      translate: exactDistinct,
    },
    {
      names: ['APPROX_PERCENTILE'],
      family: 'approximate',
      why: 'DuckDB has no APPROX_PERCENTILE; the exact continuous percentile is within its error',
      translate: (c) =>
        c.args.length === 2
          ? duckdb('quantile_cont({0}, {1})', c.args[0], c.args[1])
          : refuse('APPROX_PERCENTILE takes two arguments'),
    },
  ],
  postgres: [],
};
