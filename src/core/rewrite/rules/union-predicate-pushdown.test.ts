import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { unionPredicatePushdown } from './union-predicate-pushdown.ts';

const same = (d: Golden[0], sql: string): Golden => [d, sql, sql];

const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT * FROM (SELECT k, SUM(v) OVER (PARTITION BY k) AS s FROM t UNION ALL SELECT k, y FROM u) AS x WHERE k = 1',
    'SELECT * FROM (SELECT k, SUM(v) OVER (PARTITION BY k) AS s FROM t WHERE k = 1 UNION ALL SELECT k, y FROM u WHERE k = 1) AS x',
  ],
  same(
    'snowflake',
    'SELECT * FROM (SELECT k, SUM(v) OVER (PARTITION BY a) AS s FROM t UNION ALL SELECT k, y FROM u) AS x WHERE k = 1',
  ),
  [
    'postgres',
    'SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d WHERE d.k = 1',
    'SELECT k FROM (SELECT a AS k FROM t WHERE a = 1 UNION ALL SELECT b FROM u WHERE b = 1) AS d',
  ],
  [
    'mysql',
    "SELECT d.k FROM (SELECT a AS k, 'x' AS s FROM t UNION ALL SELECT b, 'y' FROM u) AS d WHERE d.s = 'y' AND d.k + 1 > 2",
    "SELECT d.k FROM (SELECT a AS k, 'x' AS s FROM t WHERE a + 1 > 2 UNION ALL SELECT b, 'y' FROM u WHERE b + 1 > 2) AS d WHERE d.s = 'y'",
  ],
  [
    'bigquery',
    'SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u UNION ALL SELECT c FROM w) AS d WHERE k IN (1, 2)',
    'SELECT k FROM (SELECT a AS k FROM t WHERE a IN (1, 2) UNION ALL SELECT b FROM u WHERE b IN (1, 2) UNION ALL SELECT c FROM w WHERE c IN (1, 2)) AS d',
  ],
  [
    'snowflake',
    'SELECT d.k, v.z FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k UNION ALL SELECT k, 0 FROM u) AS d JOIN v ON v.k = d.k WHERE d.k BETWEEN 1 AND 5',
    'SELECT d.k, v.z FROM (SELECT k, COUNT(*) AS n FROM t WHERE k BETWEEN 1 AND 5 GROUP BY k UNION ALL SELECT k, 0 FROM u WHERE k BETWEEN 1 AND 5) AS d JOIN v ON v.k = d.k',
  ],
  [
    'postgres',
    'SELECT k FROM (SELECT a AS k FROM t WHERE a > 0 UNION ALL SELECT b FROM u) AS d WHERE d.k IS NOT NULL',
    'SELECT k FROM (SELECT a AS k FROM t WHERE a > 0 AND a IS NOT NULL UNION ALL SELECT b FROM u WHERE b IS NOT NULL) AS d',
  ],
  // Must not move: UNION (distinct), INTERSECT, arithmetic on columns of unknown type, LIMIT in a branch or
  // on the union, aggregate column, null-supplying side, column list, volatile.
  same('postgres', 'SELECT k FROM (SELECT a AS k FROM t UNION SELECT b FROM u) AS d WHERE d.k = 1'),
  same('postgres', 'SELECT k FROM (SELECT a AS k FROM t INTERSECT SELECT b FROM u) AS d WHERE d.k = 1'),
  same('postgres', 'SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT q FROM z) AS d WHERE d.k / 2 = 1'),
  same(
    'postgres',
    'SELECT k FROM (SELECT a AS k FROM t UNION ALL (SELECT b FROM u LIMIT 1)) AS d WHERE d.k = 1',
  ),
  same(
    'postgres',
    'SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u LIMIT 5) AS d WHERE d.k = 1',
  ),
  same(
    'mysql',
    'SELECT k FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k UNION ALL SELECT k, 0 FROM u) AS d WHERE d.n = 1',
  ),
  same(
    'snowflake',
    'SELECT w.a FROM w LEFT JOIN (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d ON d.k = w.a WHERE d.k = 1',
  ),
  same('postgres', 'SELECT x FROM (SELECT a FROM t UNION ALL SELECT b FROM u) AS d (x) WHERE d.x = 1'),
  same('bigquery', 'SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d WHERE d.k > RAND()'),
];

/**
 * Branch types that differ from the union's result type (issue 14, class 3): the literal would be coerced to
 * the branch's type instead of the result's. t.d DATE / u.d TIMESTAMP, t.c CHAR(4) / u.c TEXT, t.a INTEGER /
 * u.kv VARCHAR, t.s / u.s two MySQL collations; a string literal branch (its type is the session's).
 */
const TYPE_MISMATCH: Golden[] = [
  same(
    'postgres',
    "SELECT x FROM (SELECT d AS x FROM t UNION ALL SELECT d FROM u) AS q WHERE q.x < '2024-01-01 12:00'",
  ),
  same('postgres', "SELECT x FROM (SELECT c AS x FROM t UNION ALL SELECT c FROM u) AS q WHERE q.x = 'a '"),
  same('postgres', "SELECT x FROM (SELECT a AS x FROM t UNION ALL SELECT kv FROM u) AS q WHERE q.x = '01'"),
  same('mysql', "SELECT x FROM (SELECT s AS x FROM t UNION ALL SELECT s FROM u) AS q WHERE q.x = 'A'"),
  same('mysql', "SELECT x FROM (SELECT s AS x FROM t UNION ALL SELECT 'a' FROM u) AS q WHERE q.x = 'A'"),
  same('postgres', "SELECT x FROM (SELECT 'a' AS x FROM t UNION ALL SELECT c FROM u) AS q WHERE q.x = 'a'"),
  same('postgres', 'SELECT x FROM (SELECT a AS x FROM t UNION ALL SELECT 1.5 FROM u) AS q WHERE q.x > 1'),
  same('postgres', 'SELECT x FROM (SELECT a AS x FROM t UNION ALL SELECT id FROM nation) AS q WHERE q.x > 1'),
  // Found by the fuzzer: EXTRACT(YEAR FROM NULL) cannot be resolved on DuckDB (nor PostgreSQL).
  same(
    'postgres',
    'SELECT x FROM (SELECT d AS x FROM t UNION ALL SELECT NULL FROM u) AS q WHERE EXTRACT(YEAR FROM q.x) < 2023',
  ),
];

const TYPES_EQUAL: Golden[] = [
  [
    'postgres',
    "SELECT x FROM (SELECT d AS x FROM t UNION ALL SELECT o_orderdate FROM orders) AS q WHERE q.x < '2024-01-01'",
    "SELECT x FROM (SELECT d AS x FROM t WHERE d < '2024-01-01' UNION ALL SELECT o_orderdate FROM orders WHERE o_orderdate < '2024-01-01') AS q",
  ],
  [
    'mysql',
    "SELECT x FROM (SELECT s AS x FROM t UNION ALL SELECT s FROM w) AS q WHERE q.x = 'A'",
    "SELECT x FROM (SELECT s AS x FROM t WHERE s = 'A' UNION ALL SELECT s FROM w WHERE s = 'A') AS q",
  ],
  [
    'postgres',
    'SELECT x FROM (SELECT a AS x FROM t UNION ALL SELECT NULL FROM u) AS q WHERE q.x > 1',
    'SELECT x FROM (SELECT a AS x FROM t WHERE a > 1 UNION ALL SELECT NULL FROM u WHERE (NULL) > 1) AS q',
  ],
  [
    'postgres',
    'SELECT x FROM (SELECT 1 AS x FROM t UNION ALL SELECT a FROM u) AS q WHERE q.x > 1',
    'SELECT x FROM (SELECT 1 AS x FROM t WHERE 1 > 1 UNION ALL SELECT a FROM u WHERE a > 1) AS q',
  ],
];

describe('union-predicate-pushdown', () => {
  it.each([...GOLDEN, ...TYPES_EQUAL])('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [unionPredicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
  it.each(TYPE_MISMATCH)('types differ: %s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [unionPredicatePushdown], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
    expect(out.refusals).toContain('union-predicate-pushdown/branch-types-equal');
  });
  it('moves nothing without a catalog (no type can be shown)', () => {
    const sql = 'SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d WHERE d.k = 1';
    expect(rewriteSql(sql, 'postgres', { rules: [unionPredicatePushdown], catalog: null }).sql).toBe(sql);
  });
});
