import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { unionPredicatePushdown } from './union-predicate-pushdown.ts';

const same = (d: Golden[0], sql: string): Golden => [d, sql, sql];

const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d WHERE d.k = 1',
    'SELECT k FROM (SELECT a AS k FROM t WHERE a = 1 UNION ALL SELECT b FROM u WHERE b = 1) AS d',
  ],
  [
    'mysql',
    "SELECT d.k FROM (SELECT a AS k, 'x' AS s FROM t UNION ALL SELECT b, 'y' FROM u) AS d WHERE d.s = 'y' AND d.k + 1 > 2",
    "SELECT d.k FROM (SELECT a AS k, 'x' AS s FROM t WHERE 'x' = 'y' UNION ALL SELECT b, 'y' FROM u WHERE 'y' = 'y') AS d WHERE d.k + 1 > 2",
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
  // Must not move: UNION (distinct), INTERSECT, arithmetic (branch types may differ), LIMIT in a branch or on
  // the union, aggregate column, null-supplying side, column list, volatile.
  same('postgres', 'SELECT k FROM (SELECT a AS k FROM t UNION SELECT b FROM u) AS d WHERE d.k = 1'),
  same('postgres', 'SELECT k FROM (SELECT a AS k FROM t INTERSECT SELECT b FROM u) AS d WHERE d.k = 1'),
  same('postgres', 'SELECT k FROM (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d WHERE d.k / 2 = 1'),
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

describe('union-predicate-pushdown', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [unionPredicatePushdown] }).sql).toBe(expected);
  });
});
