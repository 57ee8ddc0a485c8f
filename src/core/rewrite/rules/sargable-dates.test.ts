import { describe, expect, it } from 'vitest';
import { catalogOf } from '../../catalog.ts';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { sargableDates } from './sargable-dates.ts';

const catalog = catalogOf([
  {
    name: 'ev',
    columns: [
      { name: 'ts', type: 'timestamp' },
      { name: 'tz', type: 'timestamptz' },
      { name: 'd', type: 'date' },
      { name: 's', type: 'string' },
    ],
  },
]);

const GOLDEN: Golden[] = [
  // TPC-H's MySQL spelling: the bound is a CAST of a date literal.
  [
    'mysql',
    "SELECT s FROM ev WHERE CAST(d AS DATE) >= CAST('1994-01-01' AS DATE) AND CAST(ts AS DATE) < CAST('1995-01-01' AS DATE)",
    "SELECT s FROM ev WHERE d >= '1994-01-01' AND ts < '1995-01-01'",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE CAST(ts AS DATE) = CAST('1994-02-30' AS DATE)",
    "SELECT s FROM ev WHERE CAST(ts AS DATE) = CAST('1994-02-30' AS DATE)",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE CAST(ts AS DATE) = '2024-01-31'",
    "SELECT s FROM ev WHERE ts >= '2024-01-31' AND ts < '2024-02-01'",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE CAST(d AS DATE) = DATE '2024-01-31'",
    "SELECT s FROM ev WHERE d = '2024-01-31'",
  ],
  [
    'postgres',
    'SELECT s FROM ev WHERE EXTRACT(YEAR FROM d) = 1995',
    "SELECT s FROM ev WHERE d >= '1995-01-01' AND d < '1996-01-01'",
  ],
  [
    'postgres',
    'SELECT s FROM ev WHERE EXTRACT(YEAR FROM d) BETWEEN 1995 AND 1996',
    "SELECT s FROM ev WHERE d >= '1995-01-01' AND d < '1997-01-01'",
  ],
  [
    'postgres',
    'SELECT s FROM ev WHERE EXTRACT(YEAR FROM ts) <= 1995 AND 1990 < EXTRACT(YEAR FROM ts)',
    "SELECT s FROM ev WHERE ts < '1996-01-01' AND ts >= '1991-01-01'",
  ],
  [
    'postgres',
    'SELECT s FROM ev WHERE EXTRACT(YEAR FROM d) IN (1995, 1997)',
    "SELECT s FROM ev WHERE ((d >= '1995-01-01' AND d < '1996-01-01') OR (d >= '1997-01-01' AND d < '1998-01-01'))",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE DATE_TRUNC('month', d) = '2024-02-01'",
    "SELECT s FROM ev WHERE d >= '2024-02-01' AND d < '2024-03-01'",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE DATE_TRUNC('quarter', ts) >= '2024-04-01'",
    "SELECT s FROM ev WHERE ts >= '2024-04-01'",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE d + INTERVAL '3 days' > '2024-01-01'",
    "SELECT s FROM ev WHERE d > '2023-12-29'",
  ],
  [
    'postgres',
    'SELECT s FROM ev WHERE NOT EXTRACT(YEAR FROM d) = 1995',
    "SELECT s FROM ev WHERE NOT (d >= '1995-01-01' AND d < '1996-01-01')",
  ],
  [
    'mysql',
    "SELECT s FROM ev WHERE DATE(ts) = '2024-03-01'",
    "SELECT s FROM ev WHERE ts >= '2024-03-01' AND ts < '2024-03-02'",
  ],
  ['mysql', 'SELECT s FROM ev WHERE YEAR(d) > 1995', "SELECT s FROM ev WHERE d >= '1996-01-01'"],
  [
    'mysql',
    "SELECT s FROM ev WHERE d - INTERVAL 1 WEEK < '2024-01-01'",
    "SELECT s FROM ev WHERE d < '2024-01-08'",
  ],
  [
    'mysql',
    "SELECT s FROM ev WHERE DATE_ADD(d, INTERVAL 2 DAY) >= '2024-01-01'",
    "SELECT s FROM ev WHERE d >= '2023-12-30'",
  ],
  [
    'bigquery',
    "SELECT s FROM ev WHERE DATE(ts) BETWEEN '2024-01-01' AND '2024-01-31'",
    "SELECT s FROM ev WHERE ts >= '2024-01-01' AND ts < '2024-02-01'",
  ],
  [
    'bigquery',
    "SELECT s FROM ev WHERE DATE_TRUNC(d, MONTH) = DATE '2024-03-01'",
    "SELECT s FROM ev WHERE d >= '2024-03-01' AND d < '2024-04-01'",
  ],
  [
    'bigquery',
    'SELECT s FROM ev WHERE EXTRACT(YEAR FROM d) < 2000',
    "SELECT s FROM ev WHERE d < '2000-01-01'",
  ],
  [
    'bigquery',
    "SELECT s FROM ev WHERE DATE_ADD(d, INTERVAL 3 DAY) > '2024-01-01'",
    "SELECT s FROM ev WHERE d > '2023-12-29'",
  ],
  [
    'snowflake',
    "SELECT s FROM ev WHERE TO_DATE(ts) = '2024-01-01'",
    "SELECT s FROM ev WHERE ts >= '2024-01-01' AND ts < '2024-01-02'",
  ],
  [
    'snowflake',
    "SELECT s FROM ev WHERE ts::DATE >= '2024-01-01'",
    "SELECT s FROM ev WHERE ts >= '2024-01-01'",
  ],
  [
    'snowflake',
    'SELECT s FROM ev WHERE YEAR(d) = 1995',
    "SELECT s FROM ev WHERE d >= '1995-01-01' AND d < '1996-01-01'",
  ],
  [
    'snowflake',
    "SELECT s FROM ev WHERE DATEADD(day, 3, d) > '2024-01-01'",
    "SELECT s FROM ev WHERE d > '2023-12-29'",
  ],
  // Must not fire: unaligned DATE_TRUNC constant, TIMESTAMPTZ, string column, months, NOT IN, unknown column.
  [
    'postgres',
    "SELECT s FROM ev WHERE DATE_TRUNC('month', d) = '2024-03-15'",
    "SELECT s FROM ev WHERE DATE_TRUNC('month', d) = '2024-03-15'",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE CAST(tz AS DATE) = '2024-01-01'",
    "SELECT s FROM ev WHERE CAST(tz AS DATE) = '2024-01-01'",
  ],
  ['mysql', 'SELECT s FROM ev WHERE YEAR(s) = 1995', 'SELECT s FROM ev WHERE YEAR(s) = 1995'],
  [
    'postgres',
    "SELECT s FROM ev WHERE d + INTERVAL '1 month' > '2024-01-01'",
    "SELECT s FROM ev WHERE d + INTERVAL '1 month' > '2024-01-01'",
  ],
  [
    'postgres',
    'SELECT s FROM ev WHERE EXTRACT(YEAR FROM d) NOT IN (1995)',
    'SELECT s FROM ev WHERE EXTRACT(YEAR FROM d) NOT IN (1995)',
  ],
  [
    'postgres',
    'SELECT s FROM ev, other WHERE EXTRACT(YEAR FROM d) = 1995',
    'SELECT s FROM ev, other WHERE EXTRACT(YEAR FROM d) = 1995',
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE CAST(ts AS DATE) = '2024-02-30'",
    "SELECT s FROM ev WHERE CAST(ts AS DATE) = '2024-02-30'",
  ],
  ['postgres', 'SELECT EXTRACT(YEAR FROM d) = 1995 FROM ev', 'SELECT EXTRACT(YEAR FROM d) = 1995 FROM ev'],
];

const keep = (d: Golden[0], sql: string): Golden => [d, sql, sql];

/**
 * Interval shifts (issue 14, class 4): fire only when the interval is exactly whole days; `'1 day ago'` is
 * minus one day; sub-day parts, months and unparsed forms leave the predicate alone.
 */
const SHIFTS: Golden[] = [
  keep('postgres', "SELECT s FROM ev WHERE d + INTERVAL '1 day 12 hours' = DATE '2024-01-02'"),
  keep('postgres', "SELECT s FROM ev WHERE ts + INTERVAL '36 hours' >= '2024-01-02'"),
  keep('postgres', "SELECT s FROM ev WHERE d + INTERVAL '1 day 00:00:01' > '2024-01-02'"),
  keep('postgres', "SELECT s FROM ev WHERE d + INTERVAL '1 month -30 days' > '2024-01-02'"),
  keep('postgres', "SELECT s FROM ev WHERE d + INTERVAL 'P1D' > '2024-01-02'"),
  keep('postgres', "SELECT s FROM ev WHERE d + INTERVAL '1.5 days' > '2024-01-02'"),
  keep('postgres', "SELECT s FROM ev WHERE d - INTERVAL '1' MONTH = '2024-02-29'"),
  keep('mysql', "SELECT s FROM ev WHERE d + INTERVAL 36 HOUR >= '2024-01-02'"),
  keep('mysql', "SELECT s FROM ev WHERE DATE_SUB(d, INTERVAL 1 MONTH) = '2024-02-29'"),
  keep('bigquery', "SELECT s FROM ev WHERE DATE_ADD(d, INTERVAL 1 MONTH) = '2024-02-29'"),
  keep('snowflake', "SELECT s FROM ev WHERE DATEADD(hour, 24, ts) >= '2024-01-02'"),
  keep('snowflake', "SELECT s FROM ev WHERE DATEADD(month, 1, d) = '2024-02-29'"),
  keep('postgres', "SELECT s FROM ev WHERE d + INTERVAL '1 day' = '2024-01-02 12:00:00'"),
  [
    'postgres',
    "SELECT s FROM ev WHERE d + INTERVAL '1 day ago' = '2024-01-02'",
    "SELECT s FROM ev WHERE d = '2024-01-03'",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE d - INTERVAL '-2 days' < '2024-03-01'",
    "SELECT s FROM ev WHERE d < '2024-02-28'",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE ts + INTERVAL '1 week 2 days' >= '2024-01-10'",
    "SELECT s FROM ev WHERE ts >= '2024-01-01'",
  ],
  [
    'postgres',
    "SELECT s FROM ev WHERE d + INTERVAL '2 weeks ago' <= '2024-01-01'",
    "SELECT s FROM ev WHERE d <= '2024-01-15'",
  ],
  [
    'mysql',
    "SELECT s FROM ev WHERE d + INTERVAL -1 DAY = '2024-01-01'",
    "SELECT s FROM ev WHERE d = '2024-01-02'",
  ],
  [
    'bigquery',
    "SELECT s FROM ev WHERE DATE_SUB(d, INTERVAL -1 DAY) = '2024-01-01'",
    "SELECT s FROM ev WHERE d = '2023-12-31'",
  ],
  [
    'snowflake',
    "SELECT s FROM ev WHERE DATEADD(day, -1, d) = '2024-01-01'",
    "SELECT s FROM ev WHERE d = '2024-01-02'",
  ],
];

describe('sargable-dates', () => {
  it.each(SHIFTS)('shift: %s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [sargableDates], catalog });
    expect(out.sql).toBe(expected);
    if (input === expected) expect(out.refusals).toContain('sargable-dates/exact-preimage');
  });
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [sargableDates], catalog }).sql).toBe(expected);
  });
  it('does not fire without a catalog', () => {
    const sql = 'SELECT s FROM ev WHERE EXTRACT(YEAR FROM d) = 1995';
    expect(rewriteSql(sql, 'postgres', { rules: [sargableDates], catalog: null }).sql).toBe(sql);
  });
});
