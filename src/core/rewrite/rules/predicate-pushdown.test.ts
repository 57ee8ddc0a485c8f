import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
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

/**
 * Grouping equality (issue 14, class 6): t.s is a MySQL utf8mb4_general_ci VARCHAR ('f' = 'F' = 'f '), t.n a
 * PostgreSQL NUMERIC without scale (1.0 = 1.00), t.f a DOUBLE (-0.0 = 0.0). A filter finer than the grouping
 * stays in HAVING (or outside the DISTINCT / GROUP BY derived table).
 */
const GROUPING: Array<[Golden[0], string, string]> = [
  ['mysql', "SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING BINARY s = 'f'", 'having-grouping-equality'],
  [
    'mysql',
    "SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING s COLLATE utf8mb4_bin = 'f'",
    'having-grouping-equality',
  ],
  ['mysql', 'SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING LENGTH(s) = 1', 'having-grouping-equality'],
  ['mysql', "SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING s LIKE 'f%'", 'having-grouping-equality'],
  [
    'mysql',
    "SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING CONCAT(s, '|') = 'f|'",
    'having-grouping-equality',
  ],
  ['mysql', 'SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING s = 0', 'having-grouping-equality'],
  [
    'postgres',
    "SELECT n, COUNT(*) AS c FROM t GROUP BY n HAVING CAST(n AS TEXT) = '1.0'",
    'having-grouping-equality',
  ],
  ['postgres', 'SELECT n, COUNT(*) AS c FROM t GROUP BY n HAVING SCALE(n) = 1', 'having-grouping-equality'],
  [
    'postgres',
    "SELECT f, COUNT(*) AS c FROM t GROUP BY f HAVING CAST(f AS TEXT) = '-0'",
    'having-grouping-equality',
  ],
  ['postgres', 'SELECT f, COUNT(*) AS c FROM t GROUP BY f HAVING 1 / f < 0', 'having-grouping-equality'],
  ['postgres', 'SELECT q, COUNT(*) AS c FROM z GROUP BY q HAVING q = 1', 'having-grouping-equality'],
  ['mysql', "SELECT s FROM (SELECT DISTINCT s FROM t) AS d WHERE BINARY d.s = 'f'", 'grouping-equality'],
  [
    'mysql',
    'SELECT c FROM (SELECT s, COUNT(*) AS c FROM t GROUP BY s) AS d WHERE LENGTH(d.s) = 1',
    'grouping-equality',
  ],
  [
    'postgres',
    "SELECT n FROM (SELECT DISTINCT n FROM t) AS d WHERE CAST(d.n AS TEXT) = '1.00'",
    'grouping-equality',
  ],
];

const GROUPING_MOVED: Golden[] = [
  [
    'mysql',
    "SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING s = 'f'",
    "SELECT s, COUNT(*) AS c FROM t WHERE s = 'f' GROUP BY s",
  ],
  [
    'mysql',
    "SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING s IN ('f', 'g') OR s IS NULL",
    "SELECT s, COUNT(*) AS c FROM t WHERE (s IN ('f', 'g') OR s IS NULL) GROUP BY s",
  ],
  [
    'postgres',
    'SELECT n, COUNT(*) AS c FROM t GROUP BY n HAVING n >= 1.0',
    'SELECT n, COUNT(*) AS c FROM t WHERE n >= 1.0 GROUP BY n',
  ],
  [
    'postgres',
    'SELECT f, COUNT(*) AS c FROM t GROUP BY f HAVING f <> 0',
    'SELECT f, COUNT(*) AS c FROM t WHERE f <> 0 GROUP BY f',
  ],
  [
    'postgres',
    'SELECT a, COUNT(*) AS c FROM t GROUP BY a HAVING a % 2 = 0',
    'SELECT a, COUNT(*) AS c FROM t WHERE a % 2 = 0 GROUP BY a',
  ],
  [
    'postgres',
    "SELECT c, COUNT(*) AS n FROM t GROUP BY c HAVING UPPER(c) = 'F'",
    "SELECT c, COUNT(*) AS n FROM t WHERE UPPER(c) = 'F' GROUP BY c",
  ],
  [
    'mysql',
    'SELECT d, COUNT(*) AS c FROM t GROUP BY d HAVING YEAR(d) = 2024',
    'SELECT d, COUNT(*) AS c FROM t WHERE YEAR(d) = 2024 GROUP BY d',
  ],
];

/**
 * Window functions (issue 21): a filter on expressions in the PARTITION BY of every window function of the
 * body keeps or drops whole partitions, so it moves below the window; anything else stays above it.
 */
const WINDOW_MOVED: Golden[] = [
  [
    'postgres',
    'SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) AS x WHERE k = 5',
    'SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t WHERE k = 5) AS x',
  ],
  [
    'postgres',
    'SELECT x.k, x.s FROM (SELECT k, a, SUM(v) OVER (PARTITION BY k, a) AS s, MAX(v) OVER (PARTITION BY a, k) AS m FROM t) AS x WHERE x.k > 2 AND x.a IN (1, 2) AND x.m > 3',
    'SELECT x.k, x.s FROM (SELECT k, a, SUM(v) OVER (PARTITION BY k, a) AS s, MAX(v) OVER (PARTITION BY a, k) AS m FROM t WHERE k > 2 AND a IN (1, 2)) AS x WHERE x.m > 3',
  ],
  [
    'mysql',
    "SELECT s, r FROM (SELECT s, RANK() OVER (PARTITION BY s ORDER BY v) AS r FROM t) AS x WHERE x.s = 'f'",
    "SELECT s, r FROM (SELECT s, RANK() OVER (PARTITION BY s ORDER BY v) AS r FROM t WHERE s = 'f') AS x",
  ],
  [
    'bigquery',
    'SELECT * FROM (SELECT d, v, LAG(v) OVER (PARTITION BY d ORDER BY v) AS p FROM t) AS x WHERE EXTRACT(YEAR FROM d) = 2024',
    'SELECT * FROM (SELECT d, v, LAG(v) OVER (PARTITION BY d ORDER BY v) AS p FROM t WHERE EXTRACT(YEAR FROM d) = 2024) AS x',
  ],
  [
    'snowflake',
    'SELECT g, c FROM (SELECT k AS g, COUNT(*) OVER (PARTITION BY k) AS c FROM t) AS x WHERE x.g BETWEEN 1 AND 3',
    'SELECT g, c FROM (SELECT k AS g, COUNT(*) OVER (PARTITION BY k) AS c FROM t WHERE k BETWEEN 1 AND 3) AS x',
  ],
  [
    'postgres',
    'SELECT k, s FROM (SELECT k, SUM(SUM(v)) OVER (PARTITION BY k) AS s FROM t GROUP BY k) AS x WHERE k = 1',
    'SELECT k, s FROM (SELECT k, SUM(SUM(v)) OVER (PARTITION BY k) AS s FROM t WHERE k = 1 GROUP BY k) AS x',
  ],
];

/** Window cases that must stay above the window, each with the obligation that refuses it. */
const WINDOW_KEPT: Array<[Golden[0], string, string]> = [
  // v is the ORDER BY, not the partition: fewer rows change row numbers.
  [
    'postgres',
    'SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) AS x WHERE v = 5',
    'window-partition-keys',
  ],
  // k is the partition of one window function only.
  [
    'postgres',
    'SELECT * FROM (SELECT k, a, SUM(v) OVER (PARTITION BY k) AS s, SUM(v) OVER (PARTITION BY a) AS r FROM t) AS x WHERE k = 5',
    'window-partition-keys',
  ],
  // No PARTITION BY: one partition, every filter changes it.
  [
    'postgres',
    'SELECT * FROM (SELECT k, SUM(v) OVER () AS s FROM t) AS x WHERE k = 5',
    'window-partition-keys',
  ],
  // A named window is not modelled.
  [
    'postgres',
    'SELECT * FROM (SELECT k, SUM(v) OVER w AS s FROM t WINDOW w AS (PARTITION BY k)) AS x WHERE k = 5',
    'filter-commutes',
  ],
  // Finer than the partition's equality (MySQL case-insensitive collation puts 'f' and 'F' together).
  [
    'mysql',
    "SELECT * FROM (SELECT s, COUNT(*) OVER (PARTITION BY s) AS c FROM t) AS x WHERE BINARY x.s = 'f'",
    'window-partition-keys',
  ],
  [
    'mysql',
    'SELECT * FROM (SELECT s, COUNT(*) OVER (PARTITION BY s) AS c FROM t) AS x WHERE LENGTH(s) = 1',
    'window-partition-keys',
  ],
  // A partition key whose type the catalog does not give.
  [
    'postgres',
    'SELECT * FROM (SELECT q, COUNT(*) OVER (PARTITION BY q) AS c FROM z) AS x WHERE q > 1',
    'window-partition-keys',
  ],
  // The filter reads the window's value, or something volatile, or sits under a row limit / QUALIFY.
  [
    'postgres',
    'SELECT * FROM (SELECT k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) AS x WHERE rn = 1',
    'filter-commutes',
  ],
  [
    'postgres',
    'SELECT * FROM (SELECT k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) AS x WHERE k > RANDOM()',
    'filter-commutes',
  ],
  [
    'postgres',
    'SELECT * FROM (SELECT k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t LIMIT 10) AS x WHERE k = 1',
    'filter-commutes',
  ],
  [
    'snowflake',
    'SELECT * FROM (SELECT k, v FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) = 1) AS x WHERE k = 1',
    'filter-commutes',
  ],
  // The partitioned body is on the null-supplying side of a LEFT JOIN.
  [
    'postgres',
    'SELECT u.a FROM u LEFT JOIN (SELECT k, SUM(v) OVER (PARTITION BY k) AS s FROM t) AS x ON x.k = u.a WHERE x.k = 1',
    'preserved-side',
  ],
];

describe('predicate-pushdown', () => {
  it.each(WINDOW_MOVED)('moves a partition filter below the window: %s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [predicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
  it.each(WINDOW_KEPT)('keeps a filter above the window: %s: %s', (dialect, sql, refused) => {
    const out = rewriteSql(sql, dialect, { rules: [predicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(sql);
    expect(out.refusals).toContain(`predicate-pushdown/${refused}`);
  });
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [predicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
  it.each(GROUPING)('keeps a filter finer than the grouping: %s: %s', (dialect, sql, refused) => {
    const out = rewriteSql(sql, dialect, { rules: [predicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(sql);
    expect(out.refusals).toContain(`predicate-pushdown/${refused}`);
  });
  it.each(GROUPING_MOVED)('moves a filter the grouping respects: %s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [predicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
  it('moves HAVING only when the key types are known', () => {
    const sql = 'SELECT a, COUNT(*) AS n FROM t GROUP BY a HAVING a > 1';
    expect(rewriteSql(sql, 'postgres', { rules: [predicatePushdown], catalog: null }).sql).toBe(sql);
  });
  it('maps a derived table column list by position (or not at all)', () => {
    const sql = 'SELECT p FROM (SELECT a AS q, b AS p FROM t) AS d(p, q) WHERE d.p = 1';
    expect(rewriteSql(sql, 'postgres', { rules: [predicatePushdown], catalog: GOLDEN_CATALOG }).sql).toBe(
      sql,
    );
  });
});
