import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { predicatePushdown } from './predicate-pushdown.ts';

const same = (d: Golden[0], sql: string): Golden => [d, sql, sql];

const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT k FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k) AS d WHERE d.k = 1',
    'SELECT k FROM (SELECT k, SUM(v) AS s FROM t WHERE k = 1 GROUP BY k) AS d',
  ],
  [
    'postgres',
    'SELECT d.x FROM (SELECT a + 1 AS x FROM t WHERE b > 0) AS d JOIN u ON u.k = d.x WHERE d.x > 5 AND u.y = 2',
    'SELECT d.x FROM (SELECT a + 1 AS x FROM t WHERE b > 0 AND (a + 1) > 5) AS d JOIN u ON u.k = d.x WHERE u.y = 2',
  ],
  [
    'postgres',
    'SELECT a, COUNT(*) AS n FROM t GROUP BY a HAVING a > 1 AND COUNT(*) > 2',
    'SELECT a, COUNT(*) AS n FROM t WHERE a > 1 GROUP BY a HAVING COUNT(*) > 2',
  ],
  [
    'mysql',
    'SELECT k FROM (SELECT DISTINCT k FROM t) AS d WHERE k < 3',
    'SELECT k FROM (SELECT DISTINCT k FROM t WHERE k < 3) AS d',
  ],
  [
    'bigquery',
    'SELECT k FROM (SELECT k, v FROM t) AS d WHERE d.v = 1',
    'SELECT k FROM (SELECT k, v FROM t WHERE v = 1) AS d',
  ],
  [
    'snowflake',
    'SELECT a, SUM(b) AS s FROM t GROUP BY a HAVING a IN (1, 2)',
    'SELECT a, SUM(b) AS s FROM t WHERE a IN (1, 2) GROUP BY a',
  ],
  [
    'snowflake',
    'SELECT k FROM (SELECT k, v FROM t) AS d LEFT JOIN u ON u.k = d.k WHERE d.v = 1',
    'SELECT k FROM (SELECT k, v FROM t WHERE v = 1) AS d LEFT JOIN u ON u.k = d.k',
  ],
  // Must not cross: LIMIT, window, non-group-key column, aggregate without GROUP BY, null-supplying side,
  // FULL JOIN, volatile expression, DISTINCT ON, HAVING on an aggregate or an alias.
  same('postgres', 'SELECT k FROM (SELECT k FROM t ORDER BY k LIMIT 5) AS d WHERE k = 1'),
  same('postgres', 'SELECT k FROM (SELECT k, ROW_NUMBER() OVER (ORDER BY k) AS r FROM t) AS d WHERE k = 1'),
  same('postgres', 'SELECT k FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k) AS d WHERE d.s = 1'),
  same('postgres', 'SELECT s FROM (SELECT SUM(v) AS s FROM t) AS d WHERE s > 1'),
  same('postgres', 'SELECT u.k FROM u LEFT JOIN (SELECT k FROM t) AS d ON d.k = u.k WHERE d.k = 1'),
  same('postgres', 'SELECT k FROM (SELECT k FROM t) AS d FULL JOIN u ON u.k = d.k WHERE d.k = 1'),
  same('postgres', 'SELECT k FROM (SELECT k FROM t) AS d WHERE d.k > RANDOM()'),
  same('postgres', 'SELECT k FROM (SELECT DISTINCT ON (k) k, v FROM t) AS d WHERE d.v = 1'),
  same('postgres', 'SELECT a, COUNT(*) AS n FROM t GROUP BY a HAVING COUNT(*) > 2'),
  same('mysql', 'SELECT b AS a, COUNT(*) AS n FROM t GROUP BY a, b HAVING a > 1'),
  same('postgres', 'SELECT a, COUNT(*) AS n FROM t GROUP BY ROLLUP (a) HAVING a > 1'),
];

describe('predicate-pushdown', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [predicatePushdown] }).sql).toBe(expected);
  });
});
