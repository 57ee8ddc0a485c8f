import { datePartOf, weekStartSql } from './date-units.ts';
import type { DatePart } from './date-units.ts';
import { staticType } from './static-type.ts';
import type { Call, RuleSet, Translation } from './types.ts';
import { duckdb, refuse } from './types.ts';

const BOUNDARY_PARTS = new Set([
  'MICROSECOND',
  'MILLISECOND',
  'SECOND',
  'MINUTE',
  'HOUR',
  'DAY',
  'MONTH',
  'QUARTER',
  'YEAR',
]);

/**
 * `end - start` counted in part boundaries (BigQuery DATE_DIFF/DATETIME_DIFF, Snowflake DATEDIFF): DuckDB's
 * date_diff counts boundaries too, except for weeks, which it counts as whole 7-day spans; weeks here are
 * counted between the starts of the weeks (`weekStart`: 0 = Sunday).
 */
const boundariesSql = (
  start: string,
  end: string,
  part: DatePart,
  defaultWeekStart: number,
): string | undefined => {
  const u = part.unit;
  if (BOUNDARY_PARTS.has(u)) return `date_diff('${u.toLowerCase()}', ${start}, ${end})`;
  if (u === 'WEEK' || u === 'ISOWEEK') {
    const k = u === 'ISOWEEK' ? 1 : (part.weekStart ?? defaultWeekStart);
    return `(date_diff('day', ${weekStartSql(start, k)}, ${weekStartSql(end, k)}) // 7)`;
  }
  if (u === 'ISOYEAR') return `CAST(isoyear(${end}) - isoyear(${start}) AS BIGINT)`;
  return undefined;
};

/** `end - start` in whole parts (BigQuery TIMESTAMP_DIFF: "only the number of whole specified intervals"). */
const WHOLE_PARTS = new Set(['MICROSECOND', 'MILLISECOND', 'SECOND', 'MINUTE', 'HOUR', 'DAY']);

/** BigQuery DATE_DIFF(end, start, part) and DATETIME_DIFF: boundaries; TIMESTAMP_DIFF: whole intervals. */
const bigqueryDiff = (c: Call): Translation => {
  const part = datePartOf(c.args[2]);
  if (c.args.length !== 3 || part === undefined)
    return refuse(`${c.name} takes (end, start, part) with a constant part`);
  const whole =
    c.name === 'TIMESTAMP_DIFF' ||
    (c.name === 'DATE_DIFF' && staticType(c.args[0], 'bigquery', c.ctx) === 'timestamptz');
  if (whole) {
    if (!WHOLE_PARTS.has(part.unit)) return refuse(`${c.name} of TIMESTAMP values by ${part.unit}`);
    return duckdb(`date_sub('${part.unit.toLowerCase()}', {1}, {0})`, c.args[0], c.args[1]);
  }
  const t = boundariesSql('{1}', '{0}', part, 0);
  return t === undefined
    ? refuse(`${c.name} by ${part.unit} is not supported in local mode`)
    : duckdb(t, c.args[0], c.args[1]);
};

/** Snowflake DATEDIFF(part, start, end) (parsed as date_diff {this: end, expression: start}). */
const snowflakeDiff = (c: Call): Translation => {
  const part = datePartOf(c.payload.unit);
  // Strings ('2024-01-01') are read as timestamps, as Snowflake does.
  const operand = (node: unknown, hole: string): string =>
    staticType(node, 'snowflake', c.ctx) === 'string' ? `CAST(${hole} AS TIMESTAMP)` : hole;
  const t =
    part === undefined
      ? undefined
      : boundariesSql(operand(c.payload.expression, '{1}'), operand(c.payload.this, '{0}'), part, 1);
  return t === undefined
    ? refuse('DATEDIFF with this part is not supported in local mode')
    : duckdb(t, c.payload.this, c.payload.expression);
};

/**
 * Snowflake MONTHS_BETWEEN: whole months when the days of the month are equal or both are month ends,
 * otherwise a fraction over a 31-day month, to 6 decimals.
 */
const MONTHS_BETWEEN =
  'CAST(CASE WHEN day({0}) = day({1}) OR (CAST({0} AS DATE) = last_day({0}) AND CAST({1} AS DATE) = last_day({1})) ' +
  'THEN (year({0}) * 12 + month({0})) - (year({1}) * 12 + month({1})) ' +
  "ELSE round((year({0}) * 12 + month({0})) - (year({1}) * 12 + month({1})) + (epoch({0}) - epoch(date_trunc('month', {0})) - (epoch({1}) - epoch(date_trunc('month', {1})))) / (31 * 86400.0), 6) END AS DECIMAL(38, 6))";

export const DATE_DIFFERENCE: RuleSet = {
  bigquery: [
    {
      names: ['DATE_DIFF', 'DATETIME_DIFF', 'TIMESTAMP_DIFF'],
      family: 'date-difference',
      why: 'TIMESTAMP_DIFF counts hour boundaries instead of whole hours, and WEEK / WEEK(<day>) / ISOWEEK / ISOYEAR are not translated',
      translate: bigqueryDiff,
    },
  ],
  snowflake: [
    {
      names: ['DATEDIFF', 'TIMESTAMPDIFF', 'TIMEDIFF'],
      kinds: ['date_diff'],
      family: 'date-difference',
      why: 'the library counts whole hours and minutes instead of boundaries, and weeks as 7-day spans',
      translate: snowflakeDiff,
    },
    {
      names: ['MONTHS_BETWEEN'],
      kinds: ['months_between'],
      family: 'date-difference',
      why: 'DuckDB has no MONTHS_BETWEEN',
      translate: (c) =>
        c.kind === 'months_between'
          ? duckdb(MONTHS_BETWEEN, c.payload.this, c.payload.expression)
          : duckdb(MONTHS_BETWEEN, c.args[0], c.args[1]),
    },
  ],
  postgres: [],
};
