import { compileFormat, renderFormat, strptimePattern } from './format-elements.ts';
import type { FormatStyle } from './format-elements.ts';
import { fnNode, sqlString, stringValue } from './nodes.ts';
import type { Call, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse } from './types.ts';

/** `format` applied to `x` (a template fragment such as `{1}`), or a refusal naming the element. */
const formatted = (
  c: Call,
  formatNode: unknown,
  x: string,
  style: FormatStyle,
  args: unknown[],
): Translation => {
  const fmt = stringValue(formatNode);
  if (fmt === undefined) return refuse(`${c.name} needs a constant format in local mode`);
  const compiled = compileFormat(fmt, style);
  return compiled.ok
    ? duckdb(renderFormat(compiled.segments, x), ...args)
    : refuse(`${c.name}: ${compiled.message}`);
};

/** strptime of `{0}` by a format of only strptime-readable elements. */
const parsed = (
  c: Call,
  formatNode: unknown,
  style: FormatStyle,
  wrap: (strptime: string) => string,
  value: unknown,
): Translation => {
  const fmt = stringValue(formatNode);
  if (fmt === undefined) return refuse(`${c.name} needs a constant format in local mode`);
  const compiled = compileFormat(fmt, style);
  if (!compiled.ok) return refuse(`${c.name}: ${compiled.message}`);
  const pattern = strptimePattern(compiled.segments);
  if (pattern === undefined) return refuse(`${c.name}: this format cannot be parsed in local mode`);
  return duckdb(wrap(`strptime({0}, ${sqlString(pattern)})`), value);
};

const bigqueryFormat = (c: Call): Translation => {
  if (c.name === 'FORMAT_TIMESTAMP') {
    if (c.args.length === 3)
      return formatted(c, c.args[0], 'timezone({1}, {0})', 'bigquery', [c.args[1], c.args[2]]);
    return formatted(c, c.args[0], "timezone('UTC', {0})", 'bigquery', [c.args[1]]);
  }
  return c.args.length === 2
    ? formatted(c, c.args[0], '{0}', 'bigquery', [c.args[1]])
    : refuse(`${c.name} takes two arguments`);
};

const bigqueryParse = (c: Call): Translation => {
  const [fmt, value, zone] = c.args;
  if (c.name === 'PARSE_DATE') return parsed(c, fmt, 'bigquery-parse', (p) => `CAST(${p} AS DATE)`, value);
  if (c.name === 'PARSE_DATETIME') return parsed(c, fmt, 'bigquery-parse', (p) => p, value);
  const tz = zone === undefined ? "'UTC'" : stringValue(zone);
  if (tz === undefined) return refuse('PARSE_TIMESTAMP needs a constant time zone in local mode');
  return parsed(
    c,
    fmt,
    'bigquery-parse',
    (p) => `timezone(${zone === undefined ? tz : sqlString(tz)}, ${p})`,
    value,
  );
};

/** BigQuery `SAFE.f(…)`: f's value, or NULL where f raises an error. */
const safePrefix = (c: Call): Translation => duckdb('try({0})', fnNode(c.name.slice('SAFE.'.length), c.args));

const snowflakeToChar = (c: Call): Translation =>
  c.args.length === 1
    ? duckdb('CAST({0} AS VARCHAR)', c.args[0])
    : formatted(c, c.args[1], '{0}', 'snowflake', [c.args[0]]);

const snowflakeToDate =
  (target: 'DATE' | 'TIMESTAMP', tryIt: boolean) =>
  (c: Call): Translation => {
    if (c.args.length === 1) return duckdb(`${tryIt ? 'TRY_CAST' : 'CAST'}({0} AS ${target})`, c.args[0]);
    const fn = tryIt ? 'try_strptime' : 'strptime';
    return parsed(
      c,
      c.args[1],
      'snowflake-parse',
      (p) => `CAST(${p.replace('strptime', fn)} AS ${target})`,
      c.args[0],
    );
  };

const postgresToChar = (c: Call): Translation =>
  c.args.length === 2
    ? formatted(c, c.args[1], '{0}', 'postgres', [c.args[0]])
    : refuse('to_char takes two arguments');

export const DATE_FORMATTING: RuleSet = {
  bigquery: [
    {
      names: ['FORMAT_DATE', 'FORMAT_DATETIME', 'FORMAT_TIMESTAMP'],
      family: 'date-formatting',
      why: 'the library passes %x, %e, %Q and the time zone argument to DuckDB, which formats them differently or not at all',
      translate: bigqueryFormat,
    },
    {
      names: ['PARSE_DATE', 'PARSE_DATETIME', 'PARSE_TIMESTAMP'],
      family: 'date-formatting',
      why: 'PARSE_TIMESTAMP must give a point in time (UTC unless a zone is given)',
      translate: bigqueryParse,
    },
    {
      names: ['SAFE.PARSE_DATE', 'SAFE.PARSE_DATETIME', 'SAFE.PARSE_TIMESTAMP', 'SAFE.CAST'],
      family: 'date-formatting',
      why: 'DuckDB has no SAFE. prefix: the call is wrapped in try()',
      translate: safePrefix,
    },
  ],
  snowflake: [
    {
      names: ['TO_CHAR', 'TO_VARCHAR'],
      family: 'date-formatting',
      why: 'the library passes Snowflake format elements (YYYY, MON, DY) to DuckDB strftime unchanged',
      translate: snowflakeToChar,
    },
    {
      names: ['TO_DATE', 'DATE'],
      family: 'date-formatting',
      why: 'formats are Snowflake elements',
      translate: snowflakeToDate('DATE', false),
    },
    {
      names: ['TRY_TO_DATE'],
      family: 'date-formatting',
      why: 'formats are Snowflake elements',
      translate: snowflakeToDate('DATE', true),
    },
    {
      names: ['TO_TIMESTAMP', 'TO_TIMESTAMP_NTZ'],
      family: 'date-formatting',
      why: 'formats are Snowflake elements; TIMESTAMP means TIMESTAMP_NTZ',
      translate: snowflakeToDate('TIMESTAMP', false),
    },
    {
      names: ['DATE_FROM_PARTS'],
      family: 'date-formatting',
      why: 'DuckDB make_date refuses out-of-range months and days, which Snowflake rolls over',
      translate: (c) =>
        c.args.length === 3
          ? duckdb(
              'CAST(make_date(CAST({0} AS BIGINT), 1, 1) + (CAST({1} AS BIGINT) - 1) * INTERVAL 1 MONTH + (CAST({2} AS BIGINT) - 1) * INTERVAL 1 DAY AS DATE)',
              c.args[0],
              c.args[1],
              c.args[2],
            )
          : refuse('DATE_FROM_PARTS takes three arguments'),
    },
  ],
  postgres: [
    {
      names: ['TO_CHAR'],
      family: 'date-formatting',
      why: 'the library keeps the to_char format text, which strftime prints wrongly',
      translate: postgresToChar,
    },
    {
      names: ['TO_DATE'],
      family: 'date-formatting',
      why: 'PostgreSQL format patterns are not strftime patterns',
      translate: (c) => parsed(c, c.args[1], 'postgres-parse', (p) => `CAST(${p} AS DATE)`, c.args[0]),
    },
    {
      names: ['TO_TIMESTAMP'],
      family: 'date-formatting',
      why: 'PostgreSQL format patterns are not strftime patterns; the result is a timestamp with time zone',
      translate: (c) =>
        c.args.length === 1
          ? keep
          : parsed(c, c.args[1], 'postgres-parse', (p) => `timezone('UTC', ${p})`, c.args[0]),
    },
  ],
};
