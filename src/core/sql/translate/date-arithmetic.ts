import { isRecord } from '../tree.ts';
import { DAY_OR_LONGER, datePartOf, intervalOf, ONE_UNIT } from './date-units.ts';
import { sqlString, stringValue } from './nodes.ts';
import type { Call, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse } from './types.ts';

/**
 * `x ± n units`, keeping x's type: DuckDB turns a DATE plus an interval into a TIMESTAMP, while BigQuery's
 * DATE_ADD and Snowflake's DATEADD (day or longer) return a DATE. Month arithmetic clamps to the month's last
 * day in all of them (2024-01-31 + 1 month = 2024-02-29).
 */
const shift = (
  sign: '+' | '-',
  unit: string,
  keepType: boolean,
  x = '{0}',
  n = '{1}',
): string | undefined => {
  const one = ONE_UNIT[unit];
  if (one === undefined) return undefined;
  const sum = `${x} ${sign} CAST(${n} AS BIGINT) * ${one}`;
  return keepType ? `cast_to_type(${sum}, ${x})` : sum;
};

/** BigQuery DATE_ADD(x, INTERVAL n unit) and its DATETIME_/TIMESTAMP_ variants. */
const bigqueryAdd =
  (sign: '+' | '-') =>
  (c: Call): Translation => {
    const iv = intervalOf(c.args[1]);
    if (c.args.length !== 2 || iv === undefined)
      return refuse(`${c.name} takes (value, INTERVAL n unit) in local mode`);
    const t = shift(sign, iv.unit, true);
    return t === undefined
      ? refuse(`${c.name} with the part ${iv.unit} is not supported in local mode`)
      : duckdb(t, c.args[0], iv.amount);
  };

/** Snowflake DATEADD(part, n, x): a DATE stays a DATE for day or longer parts, becomes a TIMESTAMP below. */
const snowflakeAdd = (c: Call): Translation => {
  const part = datePartOf(c.args[0]);
  if (c.args.length !== 3 || part === undefined)
    return refuse(`${c.name} takes (part, n, value) in local mode`);
  const t = shift('+', part.unit, DAY_OR_LONGER.has(part.unit), '{1}', '{0}');
  if (t === undefined) return refuse(`${c.name} with the part ${part.unit} is not supported in local mode`);
  return duckdb(t, c.args[1], c.args[2]);
};

/**
 * Snowflake ADD_MONTHS keeps the end of the month ("if the original day is the last day of the month, the
 * result is the last day of the result month"), which DATEADD(month) and DuckDB do not.
 */
const ADD_MONTHS =
  'cast_to_type({0} + CAST({1} AS BIGINT) * INTERVAL 1 MONTH + CASE WHEN CAST({0} AS DATE) = last_day({0}) ' +
  'THEN (last_day({0} + CAST({1} AS BIGINT) * INTERVAL 1 MONTH) - CAST({0} + CAST({1} AS BIGINT) * INTERVAL 1 MONTH AS DATE)) * INTERVAL 1 DAY ' +
  'ELSE INTERVAL 0 DAY END, {0})';

const PG_INTERVAL_UNITS: Record<string, string> = {
  year: 'year',
  years: 'year',
  y: 'year',
  yr: 'year',
  yrs: 'year',
  month: 'month',
  months: 'month',
  mon: 'month',
  mons: 'month',
  week: 'week',
  weeks: 'week',
  w: 'week',
  day: 'day',
  days: 'day',
  d: 'day',
  hour: 'hour',
  hours: 'hour',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  minute: 'minute',
  minutes: 'minute',
  min: 'minute',
  mins: 'minute',
  m: 'minute',
  second: 'second',
  seconds: 'second',
  sec: 'second',
  secs: 'second',
  s: 'second',
  millisecond: 'millisecond',
  milliseconds: 'millisecond',
  ms: 'millisecond',
  microsecond: 'microsecond',
  microseconds: 'microsecond',
  us: 'microsecond',
};

/**
 * PostgreSQL interval text (`'1 month - 1 day'`, `'2 mons'`, `'1 day 02:00:00'`) in the form DuckDB reads
 * (`'1 month -1 day'`): a sign may stand apart from its number, and units have short names. Undefined when
 * the text holds anything else.
 */
export const postgresIntervalText = (text: string): string | undefined => {
  const parts: string[] = [];
  const re = /\s*([+-])?\s*(\d+(?:\.\d+)?)\s*([a-z]+)|\s*([+-]?\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)/giy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(text)) !== null) {
    end = re.lastIndex;
    if (m[4] !== undefined) {
      parts.push(m[4]);
      continue;
    }
    const unit = PG_INTERVAL_UNITS[(m[3] as string).toLowerCase()];
    if (unit === undefined) return undefined;
    parts.push(`${m[1] === '-' ? '-' : ''}${m[2] as string} ${unit}`);
  }
  return end === text.length && text.trim() !== '' && parts.length > 0 ? parts.join(' ') : undefined;
};

const postgresInterval = (c: Call): Translation => {
  const text = stringValue(c.payload.this);
  if (
    text === undefined ||
    (c.payload.unit !== undefined && c.payload.unit !== null) ||
    !isRecord(c.payload.this)
  )
    return keep;
  const duck = postgresIntervalText(text);
  return duck === undefined || duck === text ? keep : duckdb(`INTERVAL ${sqlString(duck)}`);
};

export const DATE_ARITHMETIC: RuleSet = {
  bigquery: [
    {
      names: ['DATE_ADD', 'DATETIME_ADD', 'TIMESTAMP_ADD'],
      family: 'date-arithmetic',
      why: 'the library adds an interval to a DATE, which DuckDB turns into a TIMESTAMP',
      translate: bigqueryAdd('+'),
    },
    {
      names: ['DATE_SUB', 'DATETIME_SUB', 'TIMESTAMP_SUB'],
      family: 'date-arithmetic',
      why: 'the library subtracts an interval from a DATE, which DuckDB turns into a TIMESTAMP',
      translate: bigqueryAdd('-'),
    },
  ],
  snowflake: [
    {
      names: ['DATEADD', 'TIMESTAMPADD', 'TIMEADD'],
      family: 'date-arithmetic',
      why: 'the library prints DATEADD(day, -90, d) as `d + INTERVAL -90 day`, which DuckDB cannot parse, and turns a DATE into a TIMESTAMP',
      translate: snowflakeAdd,
    },
    {
      names: ['ADD_MONTHS'],
      kinds: ['add_months'],
      family: 'date-arithmetic',
      why: 'the end of the month is not kept',
      translate: (c) => {
        const p = c.payload;
        const args = c.kind === 'add_months' ? [p.this, p.expression] : c.args;
        return args.length === 2
          ? duckdb(ADD_MONTHS, args[0], args[1])
          : refuse('ADD_MONTHS takes two arguments');
      },
    },
  ],
  postgres: [
    { names: ['MAKE_DATE', 'MAKE_TIMESTAMP', 'AGE'], family: 'date-arithmetic' },
    {
      kinds: ['interval'],
      names: ['INTERVAL'],
      family: 'date-arithmetic',
      why: "DuckDB cannot read interval texts such as '1 month - 1 day' or '2 mons'",
      translate: postgresInterval,
    },
  ],
};
