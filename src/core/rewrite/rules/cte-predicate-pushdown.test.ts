import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { ctePredicatePushdown } from './cte-predicate-pushdown.ts';

const same = (d: Golden[0], sql: string): Golden => [d, sql, sql];

const GOLDEN: Golden[] = [
  [
    'postgres',
    'WITH c AS (SELECT k, v FROM t) SELECT k FROM c WHERE c.v = 1',
    'WITH c AS (SELECT k, v FROM t WHERE v = 1) SELECT k FROM c',
  ],
  [
    'postgres',
    'WITH c AS (SELECT k, SUM(v) AS s FROM t GROUP BY k) SELECT k FROM c WHERE c.s > 1 AND c.k = 3',
    'WITH c AS (SELECT k, SUM(v) AS s FROM t WHERE k = 3 GROUP BY k) SELECT k FROM c WHERE c.s > 1',
  ],
  [
    'mysql',
    'WITH c AS (SELECT k, v FROM t) SELECT x.k FROM c AS x JOIN u ON u.a = x.k WHERE x.v = 1 AND u.b = 2',
    'WITH c AS (SELECT k, v FROM t WHERE v = 1) SELECT x.k FROM c AS x JOIN u ON u.a = x.k WHERE u.b = 2',
  ],
  [
    'bigquery',
    'WITH c AS (SELECT a AS k FROM t UNION ALL SELECT b FROM u) SELECT k FROM c WHERE k > 2',
    'WITH c AS (SELECT a AS k FROM t WHERE a > 2 UNION ALL SELECT b FROM u WHERE b > 2) SELECT k FROM c',
  ],
  [
    'snowflake',
    'SELECT n FROM (WITH c AS (SELECT k, k * 2 AS d FROM t) SELECT d AS n FROM c WHERE c.d < 10) AS q',
    'SELECT n FROM (WITH c AS (SELECT k, k * 2 AS d FROM t WHERE (k * 2) < 10) SELECT d AS n FROM c) AS q',
  ],
  // Window functions: a filter on every window's PARTITION BY moves below them (issue 21).
  [
    'postgres',
    'WITH c AS (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) SELECT k, rn FROM c WHERE k = 2',
    'WITH c AS (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t WHERE k = 2) SELECT k, rn FROM c',
  ],
  [
    'mysql',
    'WITH c AS (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) SELECT k, rn FROM c WHERE v = 2 AND k IN (1, 2)',
    'WITH c AS (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t WHERE k IN (1, 2)) SELECT k, rn FROM c WHERE v = 2',
  ],
  same(
    'bigquery',
    'WITH c AS (SELECT k, v, SUM(v) OVER (PARTITION BY v) AS s FROM t) SELECT k, s FROM c WHERE k = 2',
  ),
  // Must not move: two references, recursive, materialized, column list, shadowed name, LIMIT, window,
  // null-supplying side, volatile filter, UNION (distinct) body.
  same('postgres', 'WITH c AS (SELECT k FROM t) SELECT k FROM c WHERE k = 1 UNION ALL SELECT k FROM c'),
  same(
    'postgres',
    'WITH c AS (SELECT k FROM t) SELECT a.k FROM c AS a JOIN c AS b ON a.k = b.k WHERE a.k = 1',
  ),
  same('postgres', 'WITH RECURSIVE c AS (SELECT 1 AS k) SELECT k FROM c WHERE k = 1'),
  same('postgres', 'WITH c AS MATERIALIZED (SELECT k FROM t) SELECT k FROM c WHERE k = 1'),
  same('postgres', 'WITH c (x) AS (SELECT k FROM t) SELECT x FROM c WHERE x = 1'),
  same('postgres', 'WITH c AS (SELECT k FROM t ORDER BY k LIMIT 3) SELECT k FROM c WHERE k = 1'),
  same(
    'snowflake',
    'WITH c AS (SELECT k, ROW_NUMBER() OVER (ORDER BY k) AS r FROM t) SELECT k FROM c WHERE k = 1',
  ),
  same('mysql', 'WITH c AS (SELECT k FROM t) SELECT u.a FROM u LEFT JOIN c ON c.k = u.a WHERE c.k = 1'),
  same('bigquery', 'WITH c AS (SELECT k FROM t) SELECT k FROM c WHERE k > RAND()'),
  same('postgres', 'WITH c AS (SELECT a AS k FROM t UNION SELECT b FROM u) SELECT k FROM c WHERE k = 1'),
  same(
    'postgres',
    'WITH c AS (SELECT k FROM t) SELECT k FROM c WHERE k IN (WITH c AS (SELECT 1 AS k) SELECT k FROM c)',
  ),
];

/** Type and grouping obligations (issue 14, classes 3 and 6) through a CTE body. */
const OBLIGED: Array<[Golden[0], string, string, string]> = [
  [
    'postgres',
    "WITH q AS (SELECT d AS x FROM t UNION ALL SELECT d FROM u) SELECT x FROM q WHERE x < '2024-01-01 12:00'",
    "WITH q AS (SELECT d AS x FROM t UNION ALL SELECT d FROM u) SELECT x FROM q WHERE x < '2024-01-01 12:00'",
    'branch-types-equal',
  ],
  [
    'postgres',
    "WITH q AS (SELECT c AS x FROM t UNION ALL SELECT c FROM u) SELECT x FROM q WHERE x = 'a '",
    "WITH q AS (SELECT c AS x FROM t UNION ALL SELECT c FROM u) SELECT x FROM q WHERE x = 'a '",
    'branch-types-equal',
  ],
  [
    'mysql',
    "WITH q AS (SELECT DISTINCT s FROM t) SELECT s FROM q WHERE BINARY s = 'f'",
    "WITH q AS (SELECT DISTINCT s FROM t) SELECT s FROM q WHERE BINARY s = 'f'",
    'grouping-equality',
  ],
  [
    'mysql',
    'WITH q AS (SELECT s, COUNT(*) AS n FROM t GROUP BY s) SELECT n FROM q WHERE LENGTH(s) = 1',
    'WITH q AS (SELECT s, COUNT(*) AS n FROM t GROUP BY s) SELECT n FROM q WHERE LENGTH(s) = 1',
    'grouping-equality',
  ],
  [
    'mysql',
    "WITH q AS (SELECT s, COUNT(*) AS n FROM t GROUP BY s) SELECT n FROM q WHERE s = 'f'",
    "WITH q AS (SELECT s, COUNT(*) AS n FROM t WHERE s = 'f' GROUP BY s) SELECT n FROM q",
    '',
  ],
];

describe('cte-predicate-pushdown', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [ctePredicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
  it.each(OBLIGED)('%s: %s', (dialect, input, expected, refused) => {
    const out = rewriteSql(input, dialect, { rules: [ctePredicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
    if (refused) expect(out.refusals).toContain(`cte-predicate-pushdown/${refused}`);
  });
});
