import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { subqueryOrderBy } from './subquery-order-by.ts';

const same = (d: Golden[0], sql: string): Golden => [d, sql, sql];

const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT COUNT(*) AS n FROM (SELECT a FROM t ORDER BY a) AS d',
    'SELECT COUNT(*) AS n FROM (SELECT a FROM t) AS d',
  ],
  [
    'postgres',
    'WITH c AS (SELECT a FROM t ORDER BY a DESC) SELECT a, COUNT(*) AS n FROM c GROUP BY a',
    'WITH c AS (SELECT a FROM t) SELECT a, COUNT(*) AS n FROM c GROUP BY a',
  ],
  [
    'mysql',
    'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d ORDER BY a DESC',
    'SELECT a FROM (SELECT a FROM t) AS d ORDER BY a DESC',
  ],
  [
    'bigquery',
    'SELECT DISTINCT a FROM (SELECT a FROM t ORDER BY a) AS d',
    'SELECT DISTINCT a FROM (SELECT a FROM t) AS d',
  ],
  [
    'snowflake',
    'SELECT a FROM t WHERE a IN (SELECT b FROM u ORDER BY b)',
    'SELECT a FROM t WHERE a IN (SELECT b FROM u)',
  ],
  [
    'postgres',
    'SELECT a FROM t WHERE EXISTS(SELECT b FROM u WHERE u.b = t.a ORDER BY b)',
    'SELECT a FROM t WHERE EXISTS(SELECT b FROM u WHERE u.b = t.a)',
  ],
  [
    'postgres',
    'SELECT a, (SELECT MAX(b) FROM (SELECT b FROM u ORDER BY b) AS x) AS m FROM t ORDER BY a',
    'SELECT a, (SELECT MAX(b) FROM (SELECT b FROM u) AS x) AS m FROM t ORDER BY a',
  ],
  [
    'postgres',
    'SELECT SUM(a) OVER (PARTITION BY b) AS s FROM (SELECT a, b FROM t ORDER BY a) AS d ORDER BY s',
    'SELECT SUM(a) OVER (PARTITION BY b) AS s FROM (SELECT a, b FROM t) AS d ORDER BY s',
  ],
  [
    'postgres',
    '(SELECT a FROM t ORDER BY a) UNION (SELECT b FROM u ORDER BY b)',
    '(SELECT a FROM t) UNION (SELECT b FROM u)',
  ],
  // Must not fire: the order is observed or chooses rows (issue 14, class 5).
  same('postgres', 'SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3) AS d'),
  same('postgres', 'SELECT a FROM t ORDER BY a'),
  same('postgres', '(SELECT a FROM t ORDER BY a)'),
  // The client reads rows in the order the subquery gives them.
  same('postgres', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d'),
  same('mysql', 'SELECT d.a, u.b FROM (SELECT a FROM t ORDER BY a) AS d JOIN u ON u.b = d.a'),
  same('postgres', '(SELECT a FROM t ORDER BY a) UNION ALL (SELECT b FROM u ORDER BY b)'),
  same('postgres', 'WITH c AS (SELECT a FROM t ORDER BY a DESC) SELECT a FROM c'),
  // DISTINCT ON keeps the first row of each key, in the subquery or outside it.
  same(
    'postgres',
    'SELECT a, b FROM (SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b DESC) AS d ORDER BY a',
  ),
  same('postgres', 'SELECT DISTINCT ON (a) a, b FROM (SELECT a, b FROM t ORDER BY a, b DESC) AS d'),
  // A row limit outside reads the first rows.
  same('postgres', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d LIMIT 3'),
  same('postgres', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d ORDER BY a FETCH FIRST 2 ROWS ONLY'),
  same('mysql', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d LIMIT 2, 3'),
  // Order-sensitive aggregates and windows.
  same('postgres', "SELECT STRING_AGG(s, ',') AS x FROM (SELECT s FROM t ORDER BY s) AS d"),
  same('postgres', 'SELECT ARRAY_AGG(a) AS x FROM (SELECT a FROM t ORDER BY a) AS d'),
  same(
    'postgres',
    "SELECT b, STRING_AGG(s, ',' ORDER BY b) AS x FROM (SELECT b, s FROM t ORDER BY s) AS d GROUP BY b",
  ),
  same('mysql', 'SELECT GROUP_CONCAT(s) AS x FROM (SELECT s FROM t ORDER BY s) AS d'),
  same('snowflake', "SELECT LISTAGG(s, ',') AS x FROM (SELECT s FROM t ORDER BY s) AS d"),
  same('postgres', 'SELECT JSON_AGG(a) AS x FROM (SELECT a FROM t ORDER BY a) AS d'),
  same('postgres', 'SELECT ROW_NUMBER() OVER () AS rn, a FROM (SELECT a FROM t ORDER BY a) AS d ORDER BY a'),
  same(
    'postgres',
    'SELECT FIRST_VALUE(a) OVER (PARTITION BY b) AS f FROM (SELECT a, b FROM t ORDER BY a) AS d ORDER BY f',
  ),
  same(
    'postgres',
    'SELECT LAG(a) OVER (ORDER BY b) AS f FROM (SELECT a, b FROM t ORDER BY a) AS d ORDER BY f',
  ),
  same('postgres', "WITH c AS (SELECT s FROM t ORDER BY s) SELECT STRING_AGG(s, ',') AS x FROM c"),
  same('postgres', 'SELECT ARRAY(SELECT a FROM (SELECT a FROM t ORDER BY a) AS d) AS x'),
  same('mysql', 'SELECT b, a FROM (SELECT a, b FROM t ORDER BY a DESC) AS d GROUP BY b'),
  same(
    'postgres',
    'SELECT x.a FROM t AS y, LATERAL (SELECT a FROM u WHERE u.b = y.a ORDER BY a) AS x ORDER BY 1',
  ),
];

describe('subquery-order-by', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [subqueryOrderBy] });
    expect(out.fallback, out.reason).toBe(false);
    expect(out.sql).toBe(expected);
  });
});
