import { isRecord } from '../tree.ts';
import { weekdayIndex } from './date-units.ts';
import type { Call, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse } from './types.ts';

/** The EXTRACT field as one upper-case word: `DAYOFWEEK`, `WEEK`, `ISOWEEK`, `WEEK(MONDAY)`. */
const fieldOf = (field: unknown): string | undefined => {
  if (typeof field === 'string') return field.toUpperCase();
  if (isRecord(field) && typeof field.Custom === 'string') return field.Custom.toUpperCase();
  if (isRecord(field) && typeof field.WeekWithModifier === 'string')
    return `WEEK(${field.WeekWithModifier.toUpperCase()})`;
  return undefined;
};

/** Week number 0–53 with weeks starting on day k (0 = Sunday); days before the year's first such day are week 0. */
const weekNumberSql = (k: number): string => `((dayofyear({0}) - (dayofweek({0}) - ${k} + 7) % 7 + 6) // 7)`;

/**
 * BigQuery EXTRACT: DAYOFWEEK counts from 1 = Sunday (DuckDB from 0), WEEK counts Sunday-based weeks from 0
 * (DuckDB's week is ISO), MILLISECOND and MICROSECOND are within the second (DuckDB's include the seconds).
 */
const bigqueryExtract = (c: Call): Translation => {
  const f = fieldOf(c.payload.field);
  const x = c.payload.this;
  if (f === undefined) return refuse('EXTRACT of this part is not supported in local mode');
  const week = /^WEEK\((\w+)\)$/.exec(f);
  if (week) {
    const k = weekdayIndex(week[1] as string);
    return k === undefined ? refuse(`EXTRACT(${f})`) : duckdb(weekNumberSql(k), x);
  }
  switch (f) {
    case 'DAYOFWEEK':
      return duckdb('(dayofweek({0}) + 1)', x);
    case 'WEEK':
      return duckdb(weekNumberSql(0), x);
    case 'ISOWEEK':
      return duckdb('week({0})', x);
    case 'ISOYEAR':
      return duckdb('isoyear({0})', x);
    case 'DATE':
      return duckdb('CAST({0} AS DATE)', x);
    case 'TIME':
      return duckdb('CAST({0} AS TIME)', x);
    case 'DATETIME':
      return duckdb('CAST({0} AS TIMESTAMP)', x);
    case 'MILLISECOND':
      return duckdb('(millisecond({0}) % 1000)', x);
    case 'MICROSECOND':
      return duckdb('(microsecond({0}) % 1000000)', x);
    case 'YEAR':
    case 'QUARTER':
    case 'MONTH':
    case 'DAY':
    case 'DAYOFYEAR':
    case 'HOUR':
    case 'MINUTE':
    case 'SECOND':
      return keep;
    default:
      return refuse(`EXTRACT(${f}) is not supported in local mode`);
  }
};

export const DATE_PARTS: RuleSet = {
  bigquery: [
    {
      kinds: ['extract'],
      names: ['EXTRACT'],
      family: 'date-parts',
      why: 'DAYOFWEEK is taken 0-based, WEEK as the ISO week, MILLISECOND including the seconds; ISOWEEK and DATE are passed to DuckDB as parts it does not know',
      translate: bigqueryExtract,
    },
  ],
  snowflake: [
    { kinds: ['extract'], names: ['EXTRACT'], family: 'date-parts' },
    { names: ['DATE_PART'], family: 'date-parts' },
    {
      kinds: ['year', 'month', 'day', 'hour', 'minute', 'second', 'quarter', 'day_of_year'],
      names: ['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'QUARTER', 'DAYOFYEAR'],
      family: 'date-parts',
    },
    // WEEK_START = 0 (the default): DAYOFWEEK is 0 for Sunday as in DuckDB; weeks of the year are ISO weeks.
    { kinds: ['day_of_week'], names: ['DAYOFWEEK'], family: 'date-parts' },
    { names: ['DAYOFWEEKISO', 'WEEK', 'WEEKISO', 'YEAROFWEEKISO'], family: 'date-parts' },
    {
      names: ['DAYNAME'],
      family: 'date-parts',
      why: "DuckDB's dayname is the full name ('Sunday'), Snowflake's the abbreviation ('Sun')",
      translate: (c) => duckdb("strftime({0}, '%a')", c.args[0]),
    },
    {
      names: ['MONTHNAME'],
      kinds: ['monthname'],
      family: 'date-parts',
      why: "DuckDB's monthname is the full name ('January'), Snowflake's the abbreviation ('Jan')",
      translate: (c) => duckdb("strftime({0}, '%b')", c.kind === 'monthname' ? c.payload.this : c.args[0]),
    },
  ],
  postgres: [
    { kinds: ['extract'], names: ['EXTRACT'], family: 'date-parts' },
    { names: ['DATE_PART'], family: 'date-parts' },
  ],
};
