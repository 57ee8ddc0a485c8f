import { isRecord } from '../tree.ts';
import { payloadOf, wordValue } from './nodes.ts';

/** A date/time part as rules use it; `WEEK` carries the day its weeks start on (0 = Sunday … 6 = Saturday). */
export type DatePart = { readonly unit: string; readonly weekStart?: number };

const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** A weekday name (full, or its first two or three letters, as Snowflake allows) as 0 = Sunday … 6 = Saturday. */
export const weekdayIndex = (name: string): number | undefined => {
  const n = name.toUpperCase();
  if (n.length < 2) return undefined;
  const i = WEEKDAYS.findIndex((d) => d === n || (n.length <= 3 && d.startsWith(n)));
  return i < 0 ? undefined : i;
};

/** Spellings of the same part, to one name. */
const ALIASES: Record<string, string> = {
  DAYS: 'DAY',
  D: 'DAY',
  DD: 'DAY',
  DAYOFMONTH: 'DAY',
  WEEKS: 'WEEK',
  W: 'WEEK',
  WK: 'WEEK',
  WEEKOFYEAR: 'WEEK',
  MONTHS: 'MONTH',
  MM: 'MONTH',
  MON: 'MONTH',
  QUARTERS: 'QUARTER',
  Q: 'QUARTER',
  QTR: 'QUARTER',
  YEARS: 'YEAR',
  Y: 'YEAR',
  YY: 'YEAR',
  YYYY: 'YEAR',
  HOURS: 'HOUR',
  H: 'HOUR',
  HH: 'HOUR',
  MINUTES: 'MINUTE',
  MI: 'MINUTE',
  MIN: 'MINUTE',
  SECONDS: 'SECOND',
  S: 'SECOND',
  SEC: 'SECOND',
  MILLISECONDS: 'MILLISECOND',
  MS: 'MILLISECOND',
  MICROSECONDS: 'MICROSECOND',
  US: 'MICROSECOND',
  NANOSECONDS: 'NANOSECOND',
  NS: 'NANOSECOND',
};

export const normaliseUnit = (u: string): string => {
  const up = u.toUpperCase().replace(/^'|'$/g, '');
  return ALIASES[up] ?? up;
};

/**
 * A part written as a keyword (`DAY`), a string (`'day'`), BigQuery's `WEEK(MONDAY)`, or the library's
 * enum form (`{WeekWithModifier: 'SUNDAY'}`, `'Day'`).
 */
export const datePartOf = (node: unknown): DatePart | undefined => {
  if (typeof node === 'string') return { unit: normaliseUnit(node) };
  if (!isRecord(node)) return undefined;
  if (typeof node.WeekWithModifier === 'string') {
    const w = weekdayIndex(node.WeekWithModifier);
    return w === undefined ? undefined : { unit: 'WEEK', weekStart: w };
  }
  const p = payloadOf(node);
  if (isRecord(node.function) && p && typeof p.name === 'string' && p.name.toUpperCase() === 'WEEK') {
    const args = Array.isArray(p.args) ? p.args : [];
    const day = wordValue(args[0]);
    const w = day === undefined ? undefined : weekdayIndex(day);
    return args.length === 1 && w !== undefined ? { unit: 'WEEK', weekStart: w } : undefined;
  }
  const word = wordValue(node);
  return word === undefined ? undefined : { unit: normaliseUnit(word) };
};

/** An INTERVAL literal's amount node and unit (`INTERVAL 5 DAY`, `INTERVAL x MONTH`). */
export const intervalOf = (node: unknown): { amount: unknown; unit: string } | undefined => {
  const iv = isRecord(node) && isRecord(node.interval) ? node.interval : undefined;
  if (!iv || !isRecord(iv.unit) || iv.unit.type !== 'simple' || typeof iv.unit.unit !== 'string')
    return undefined;
  return { amount: iv.this, unit: normaliseUnit(iv.unit.unit) };
};

/** The DuckDB interval of one unit, for `n * <interval>` arithmetic (weeks and quarters in days and months). */
export const ONE_UNIT: Record<string, string> = {
  MICROSECOND: 'INTERVAL 1 MICROSECOND',
  MILLISECOND: 'INTERVAL 1 MILLISECOND',
  SECOND: 'INTERVAL 1 SECOND',
  MINUTE: 'INTERVAL 1 MINUTE',
  HOUR: 'INTERVAL 1 HOUR',
  DAY: 'INTERVAL 1 DAY',
  WEEK: 'INTERVAL 7 DAY',
  MONTH: 'INTERVAL 1 MONTH',
  QUARTER: 'INTERVAL 3 MONTH',
  YEAR: 'INTERVAL 1 YEAR',
};

export const DAY_OR_LONGER = new Set(['DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR']);

/** DuckDB: the first day (as a DATE) of the week holding `{x}`, weeks starting on `start` (0 = Sunday). */
export const weekStartSql = (x: string, start: number): string =>
  `(CAST(${x} AS DATE) - CAST((dayofweek(${x}) - ${start} + 7) % 7 AS INTEGER))`;
