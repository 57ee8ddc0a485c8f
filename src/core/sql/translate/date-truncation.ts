import { datePartOf, weekdayIndex, weekStartSql } from './date-units.ts';
import type { DatePart } from './date-units.ts';
import { stringValue } from './nodes.ts';
import { staticType } from './static-type.ts';
import type { Call, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse } from './types.ts';

const PLAIN = new Set([
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
 * DuckDB truncation of `x` to a part, as a value of x's own type (DuckDB's date_trunc makes a DATE a
 * TIMESTAMP). `weekStart` is the first day of a WEEK (BigQuery: Sunday unless WEEK(<day>); Snowflake and
 * ISO: Monday).
 */
const truncSql = (x: string, part: DatePart, defaultWeekStart: number): string | undefined => {
  const u = part.unit;
  if (PLAIN.has(u)) return `cast_to_type(date_trunc('${u.toLowerCase()}', ${x}), ${x})`;
  if (u === 'NANOSECOND') return x;
  if (u === 'ISOYEAR') return `cast_to_type(date_trunc('isoyear', ${x}), ${x})`;
  if (u === 'ISOWEEK') return `cast_to_type(date_trunc('week', ${x}), ${x})`;
  if (u === 'WEEK') return `cast_to_type(${weekStartSql(x, part.weekStart ?? defaultWeekStart)}, ${x})`;
  return undefined;
};

/** BigQuery DATE_TRUNC / DATETIME_TRUNC / TIMESTAMP_TRUNC(x, part [, time zone]). */
const bigqueryTrunc = (c: Call): Translation => {
  const part = datePartOf(c.args[1]);
  if (part === undefined || c.args.length < 2 || c.args.length > 3)
    return refuse(`${c.name} takes (value, part [, time zone]) with a constant part in local mode`);
  if (c.args.length === 3) {
    // In the time zone: the civil time there is truncated, then read back as a point in time.
    const t = truncSql('timezone({2}, {0})', part, 0);
    return t === undefined
      ? refuse(`${c.name} to ${part.unit}`)
      : duckdb(`timezone({2}, ${t})`, c.args[0], c.args[1], c.args[2]);
  }
  const t = truncSql('{0}', part, 0);
  return t === undefined
    ? refuse(`${c.name} to ${part.unit} is not supported in local mode`)
    : duckdb(t, c.args[0]);
};

/** The last day (a DATE) of the part holding `{0}`. */
const lastDaySql = (part: DatePart, defaultWeekStart: number): string | undefined => {
  switch (part.unit) {
    case 'MONTH':
      return 'last_day({0})';
    case 'QUARTER':
      return "CAST(date_trunc('quarter', {0}) + INTERVAL 3 MONTH - INTERVAL 1 DAY AS DATE)";
    case 'YEAR':
      return "CAST(date_trunc('year', {0}) + INTERVAL 1 YEAR - INTERVAL 1 DAY AS DATE)";
    case 'WEEK':
      return `(${weekStartSql('{0}', part.weekStart ?? defaultWeekStart)} + 6)`;
    case 'ISOWEEK':
      return "(CAST(date_trunc('week', {0}) AS DATE) + 6)";
    case 'ISOYEAR':
      return "(CAST(date_trunc('isoyear', date_trunc('isoyear', {0}) + INTERVAL 371 DAY) AS DATE) - 1)";
    default:
      return undefined;
  }
};

const lastDay =
  (defaultWeekStart: number) =>
  (c: Call): Translation => {
    // A typed node (`unit` field), or a plain call LAST_DAY(x [, part]) (parse.ts keeps WEEK(<day>) that way).
    const [x, unit] = c.kind === 'function' ? [c.args[0], c.args[1]] : [c.payload.this, c.payload.unit];
    const part = unit === undefined || unit === null ? { unit: 'MONTH' } : datePartOf(unit);
    const t = part === undefined ? undefined : lastDaySql(part, defaultWeekStart);
    return t === undefined ? refuse('LAST_DAY with this part is not supported in local mode') : duckdb(t, x);
  };

/** Snowflake DATE_TRUNC('part', x) and TRUNC(x, 'part'): weeks start on Monday (WEEK_START = 0). */
const snowflakeTrunc = (c: Call): Translation => {
  const isTrunc = c.name === 'TRUNC' || c.name === 'TRUNCATE';
  const [partNode, x] = isTrunc ? [c.args[1], c.args[0]] : [c.args[0], c.args[1]];
  if (isTrunc && stringValue(partNode) === undefined) return keep; // TRUNC(number, scale)
  const part = datePartOf(partNode);
  const t = part === undefined || c.args.length !== 2 ? undefined : truncSql('{0}', part, 1);
  return t === undefined ? refuse(`${c.name} with this part is not supported in local mode`) : duckdb(t, x);
};

/** Snowflake NEXT_DAY / PREVIOUS_DAY(x, 'weekday'): the next (previous) such day, strictly after (before) x. */
const nextDay =
  (next: boolean) =>
  (c: Call): Translation => {
    const [x, dayNode] =
      c.kind === 'next_day' ? [c.payload.this, c.payload.expression] : [c.args[0], c.args[1]];
    const name = stringValue(dayNode);
    const k = name === undefined ? undefined : weekdayIndex(name);
    if (k === undefined) return refuse(`${c.name} needs a constant weekday in local mode`);
    return next
      ? duckdb(`(CAST({0} AS DATE) + CAST((${k} - dayofweek({0}) + 6) % 7 + 1 AS INTEGER))`, x)
      : duckdb(`(CAST({0} AS DATE) - CAST((dayofweek({0}) - ${k} + 6) % 7 + 1 AS INTEGER))`, x);
  };

/** PostgreSQL date_trunc: a DATE argument is taken as timestamp with time zone, so the result is one too. */
const postgresTrunc = (c: Call): Translation => {
  if (c.args.length === 2 && staticType(c.args[1], 'postgres', c.ctx) === 'date')
    return duckdb('CAST(date_trunc({0}, {1}) AS TIMESTAMPTZ)', c.args[0], c.args[1]);
  if (c.args.length === 3)
    return duckdb('timezone({2}, date_trunc({0}, timezone({2}, {1})))', c.args[0], c.args[1], c.args[2]);
  return keep;
};

export const DATE_TRUNCATION: RuleSet = {
  bigquery: [
    {
      names: ['DATE_TRUNC', 'DATETIME_TRUNC', 'TIMESTAMP_TRUNC'],
      family: 'date-truncation',
      why: 'the library passes WEEK(MONDAY) and ISOWEEK as DuckDB parts it does not know, truncates WEEK to Monday instead of Sunday, and returns a TIMESTAMP for a DATE',
      translate: bigqueryTrunc,
    },
    {
      names: ['LAST_DAY'],
      kinds: ['last_day'],
      family: 'date-truncation',
      why: 'the library drops the part argument (YEAR, QUARTER, WEEK(<day>)) and always takes the month',
      translate: lastDay(0),
    },
  ],
  snowflake: [
    {
      names: ['DATE_TRUNC', 'TRUNC', 'TRUNCATE'],
      family: 'date-truncation',
      why: 'DuckDB returns a TIMESTAMP for a DATE, and has no TRUNC(date, part)',
      translate: snowflakeTrunc,
    },
    {
      names: ['LAST_DAY'],
      kinds: ['last_day'],
      family: 'date-truncation',
      why: 'the library drops the part argument',
      translate: lastDay(1),
    },
    {
      names: ['NEXT_DAY'],
      kinds: ['next_day'],
      family: 'date-truncation',
      why: 'DuckDB has no NEXT_DAY',
      translate: nextDay(true),
    },
    {
      names: ['PREVIOUS_DAY'],
      family: 'date-truncation',
      why: 'DuckDB has no PREVIOUS_DAY',
      translate: nextDay(false),
    },
  ],
  postgres: [
    {
      names: ['DATE_TRUNC'],
      family: 'date-truncation',
      why: 'DuckDB returns a timestamp without time zone for a date, PostgreSQL one with time zone',
      translate: postgresTrunc,
    },
  ],
};
