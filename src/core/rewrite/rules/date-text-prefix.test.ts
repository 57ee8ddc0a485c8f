import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { dateTextPrefix, prefixRange } from './date-text-prefix.ts';

const GOLDEN: Golden[] = [
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995-%'",
    "SELECT id FROM t WHERE d >= '1995-01-01' AND d < '1996-01-01'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995%' AND a > 1",
    "SELECT id FROM t WHERE d >= '1995-01-01' AND d < '1996-01-01' AND a > 1",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE DATE_FORMAT(t.d, '%Y-%m') = '1995-12'",
    "SELECT id FROM t WHERE t.d >= '1995-12-01' AND t.d < '1996-01-01'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE '1996-02-29' = DATE_FORMAT(d, '%Y-%m-%d')",
    "SELECT id FROM t WHERE d >= '1996-02-29' AND d < '1996-03-01'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE a = 1 OR CAST(d AS CHAR) LIKE '1995-02-%'",
    "SELECT id FROM t WHERE a = 1 OR (d >= '1995-02-01' AND d < '1995-03-01')",
  ],
  [
    'bigquery',
    "SELECT id FROM t WHERE CAST(d AS STRING) LIKE '1995-03-%'",
    "SELECT id FROM t WHERE d >= '1995-03-01' AND d < '1995-04-01'",
  ],
  [
    'bigquery',
    "SELECT id FROM t WHERE FORMAT_DATE('%Y', d) = '1995'",
    "SELECT id FROM t WHERE d >= '1995-01-01' AND d < '1996-01-01'",
  ],
  [
    'bigquery',
    "SELECT id FROM t WHERE FORMAT_DATE('%Y-%m', d) = '1995-07'",
    "SELECT id FROM t WHERE d >= '1995-07-01' AND d < '1995-08-01'",
  ],
  // Must not fire: several ranges, no date, a length, a timestamp or string column, another scope, PostgreSQL.
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995-1%'",
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995-1%'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '%-03-%'",
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '%-03-%'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995-_3%'",
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995-_3%'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995-02-30%'",
    "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995-02-30%'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(d AS CHAR(4)) LIKE '1995%'",
    "SELECT id FROM t WHERE CAST(d AS CHAR(4)) LIKE '1995%'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE DATE_FORMAT(d, '%Y-%m') = '1995'",
    "SELECT id FROM t WHERE DATE_FORMAT(d, '%Y-%m') = '1995'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE DATE_FORMAT(d, '%y') = '95'",
    "SELECT id FROM t WHERE DATE_FORMAT(d, '%y') = '95'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(ts AS CHAR) LIKE '1995-%'",
    "SELECT id FROM t WHERE CAST(ts AS CHAR) LIKE '1995-%'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE CAST(s AS CHAR) LIKE '1995-%'",
    "SELECT id FROM t WHERE CAST(s AS CHAR) LIKE '1995-%'",
  ],
  [
    'mysql',
    "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE CAST(d AS CHAR) LIKE '1995-%')",
    "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE CAST(d AS CHAR) LIKE '1995-%')",
  ],
  [
    'postgres',
    "SELECT id FROM t WHERE CAST(d AS TEXT) LIKE '1995-%'",
    "SELECT id FROM t WHERE CAST(d AS TEXT) LIKE '1995-%'",
  ],
  [
    'snowflake',
    "SELECT id FROM t WHERE CAST(d AS VARCHAR) LIKE '1995-%'",
    "SELECT id FROM t WHERE CAST(d AS VARCHAR) LIKE '1995-%'",
  ],
];

describe('date-text-prefix', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [dateTextPrefix], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
  it('names exactly the dates whose ISO text has the prefix', () => {
    // Every day of 1995–1996 against every clean prefix of a few dates: the range holds exactly the matches.
    const days: string[] = [];
    for (let t = Date.UTC(1995, 0, 1); t < Date.UTC(1997, 0, 1); t += 86_400_000)
      days.push(new Date(t).toISOString().slice(0, 10));
    for (const prefix of ['1995', '1995-', '1996-02', '1996-02-', '1996-02-29', '1995-12', '1995-12-31']) {
      const r = prefixRange(prefix);
      expect(r, prefix).toBeDefined();
      const [from, to] = r as [string, string];
      for (const d of days) expect(d >= from && d < to, `${prefix} ${d}`).toBe(d.startsWith(prefix));
    }
    for (const bad of ['1995-1', '199', '95', '1995-13', '1995-02-30', '0999', '9999', '1995-02-3'])
      expect(prefixRange(bad), bad).toBeUndefined();
  });
});
