import { isRecord } from '../tree.ts';
import { sqlString } from './nodes.ts';
import { dataTypeName, staticType } from './static-type.ts';
import type { Call, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse } from './types.ts';

/**
 * Time zones and timestamp types. BigQuery's TIMESTAMP is a point in time (DuckDB TIMESTAMPTZ) and its
 * DATETIME a civil time (DuckDB TIMESTAMP); the library maps both to TIMESTAMP, which drops the offset of
 * `TIMESTAMP '… +02'` and makes AT TIME ZONE and TIMESTAMP_TRUNC(…, tz) read civil times as UTC. Local mode
 * runs with the session time zone UTC, the default of all three warehouses' functions here.
 */

const bigqueryLiteral = (c: Call): Translation => {
  const { literal_type: type, value } = c.payload;
  if (typeof value !== 'string') return keep;
  if (type === 'timestamp') return duckdb(`CAST(${sqlString(value)} AS TIMESTAMPTZ)`);
  if (type === 'datetime') return duckdb(`CAST(${sqlString(value)} AS TIMESTAMP)`);
  // A literal with a decimal point or an exponent is a FLOAT64 (DuckDB: an exact DECIMAL), so 0.1 + 0.2 = 0.3
  // is false, as in BigQuery.
  if (type === 'number' && /^\d*\.?\d*(e[+-]?\d+)?$/i.test(value) && /[.eE]/.test(value))
    return duckdb(`CAST(${sqlString(value)} AS DOUBLE)`);
  return keep;
};

const CAST_KINDS: Record<string, string> = { cast: 'CAST', safe_cast: 'TRY_CAST', try_cast: 'TRY_CAST' };

/**
 * BigQuery casts: to TIMESTAMP means TIMESTAMPTZ; to INT64 rounds halfway cases away from zero (DuckDB
 * rounds a DOUBLE's to even), so a fraction known to be FLOAT64 is rounded first.
 */
const bigqueryCast = (c: Call): Translation => {
  const target = dataTypeName(c.payload.to);
  const op = CAST_KINDS[c.kind] ?? 'CAST';
  if (target === 'TIMESTAMP') return duckdb(`${op}({0} AS TIMESTAMPTZ)`, c.payload.this);
  if (target === 'INT64' && staticType(c.payload.this, 'bigquery', c.ctx) === 'float')
    return duckdb(`${op}(round({0}) AS BIGINT)`, c.payload.this);
  return keep;
};

/** PostgreSQL: a cast to varchar(n) or char varying(n) cuts the text to n characters (DuckDB ignores n). */
const postgresCast = (c: Call): Translation => {
  const to = isRecord(c.payload.to) ? c.payload.to : undefined;
  const name = dataTypeName(to);
  if ((name === 'VARCHAR' || name === 'CHARVARYING') && to && typeof to.length === 'number')
    return duckdb(`left(CAST({0} AS VARCHAR), ${to.length})`, c.payload.this);
  return keep;
};

const bigqueryTimestamp = (c: Call): Translation => {
  const zone = c.payload.zone;
  if (zone === undefined || zone === null) return duckdb('CAST({0} AS TIMESTAMPTZ)', c.payload.this);
  return duckdb('timezone({1}, CAST({0} AS TIMESTAMP))', c.payload.this, zone);
};

/** BigQuery DATE(…) and DATETIME(…): from parts, from a point in time in a zone, or a plain conversion. */
const bigqueryDate =
  (target: 'DATE' | 'TIMESTAMP') =>
  (c: Call): Translation => {
    const n = c.args.length;
    if (target === 'DATE' && n === 3) return duckdb('make_date({0}, {1}, {2})', ...c.args);
    if (target === 'TIMESTAMP' && n === 6)
      return duckdb('make_timestamp({0}, {1}, {2}, {3}, {4}, {5})', ...c.args);
    if (n === 2 && staticType(c.args[1], 'bigquery', c.ctx) === 'string')
      return duckdb(`CAST(timezone({1}, {0}) AS ${target})`, c.args[0], c.args[1]);
    if (n === 1) return duckdb(`CAST({0} AS ${target})`, c.args[0]);
    return refuse(`${c.name} with these arguments is not supported in local mode`);
  };

export const TIME_ZONES: RuleSet = {
  bigquery: [
    {
      kinds: ['literal'],
      names: ['TIMESTAMP literal'],
      family: 'time-zones',
      why: "the library reads TIMESTAMP '… +02' as a civil time and drops the offset, and makes 1.5 a DECIMAL (BigQuery: FLOAT64)",
      translate: bigqueryLiteral,
    },
    {
      kinds: ['cast', 'safe_cast'],
      names: ['CAST', 'SAFE_CAST'],
      family: 'time-zones',
      why: 'CAST(x AS TIMESTAMP) gives a civil time, and CAST(FLOAT64 AS INT64) rounds 2.5 to 2',
      translate: bigqueryCast,
    },
    {
      kinds: ['timestamp'],
      names: ['TIMESTAMP'],
      family: 'time-zones',
      why: 'TIMESTAMP(civil, zone) reads the civil time in the zone',
      translate: bigqueryTimestamp,
    },
    {
      names: ['DATE'],
      family: 'time-zones',
      why: 'DATE(timestamp, zone) and DATE(y, m, d)',
      translate: bigqueryDate('DATE'),
    },
    {
      names: ['DATETIME'],
      family: 'time-zones',
      why: 'DATETIME(timestamp, zone)',
      translate: bigqueryDate('TIMESTAMP'),
    },
    { kinds: ['at_time_zone'], names: ['AT TIME ZONE'], family: 'time-zones' },
    {
      names: ['TIMESTAMP_SECONDS', 'UNIX_SECONDS', 'UNIX_MILLIS', 'UNIX_MICROS', 'UNIX_DATE'],
      family: 'time-zones',
    },
    {
      names: ['TIMESTAMP_MILLIS'],
      family: 'time-zones',
      why: "the library's epoch_ms gives a civil time",
      translate: (c) => duckdb("timezone('UTC', epoch_ms(CAST({0} AS BIGINT)))", c.args[0]),
    },
    {
      names: ['TIMESTAMP_MICROS'],
      family: 'time-zones',
      why: 'DuckDB needs make_timestamp, read as UTC',
      translate: (c) => duckdb("timezone('UTC', make_timestamp(CAST({0} AS BIGINT)))", c.args[0]),
    },
    {
      names: ['DATE_FROM_UNIX_DATE'],
      family: 'time-zones',
      why: 'DuckDB has no DATE_FROM_UNIX_DATE',
      translate: (c) => duckdb("(DATE '1970-01-01' + CAST({0} AS INTEGER))", c.args[0]),
    },
    {
      kinds: ['current_date', 'current_timestamp'],
      names: ['CURRENT_DATE', 'CURRENT_TIMESTAMP'],
      family: 'time-zones',
    },
  ],
  snowflake: [
    {
      names: ['CONVERT_TIMEZONE'],
      family: 'time-zones',
      why: 'the source and target zones must both be applied to a TIMESTAMP_NTZ',
      translate: (c) =>
        c.args.length === 3
          ? duckdb('timezone({1}, timezone({0}, {2}))', c.args[0], c.args[1], c.args[2])
          : refuse(
              'CONVERT_TIMEZONE with two arguments (a TIMESTAMP_TZ result) is not supported in local mode',
            ),
    },
    { kinds: ['current_date'], names: ['CURRENT_DATE'], family: 'time-zones' },
    {
      kinds: ['current_timestamp'],
      names: ['CURRENT_TIMESTAMP'],
      family: 'time-zones',
      why: 'the library prints CURRENT_TIMESTAMP(), which DuckDB cannot parse',
      translate: () => duckdb('now()'),
    },
  ],
  postgres: [
    { kinds: ['at_time_zone'], names: ['AT TIME ZONE'], family: 'time-zones' },
    {
      kinds: ['cast', 'try_cast'],
      names: ['CAST'],
      family: 'time-zones',
      why: 'a cast to varchar(n) cuts the text to n characters; DuckDB ignores the length',
      translate: postgresCast,
    },
    {
      kinds: ['current_date', 'current_timestamp'],
      names: ['CURRENT_DATE', 'NOW', 'CURRENT_TIMESTAMP'],
      family: 'time-zones',
    },
  ],
};
