import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { unusedColumns } from './unused-columns.ts';

const same = (d: Golden[0], sql: string): Golden => [d, sql, sql];

const GOLDEN: Golden[] = [
  ['postgres', 'SELECT d.a FROM (SELECT a, b FROM t) AS d', 'SELECT d.a FROM (SELECT a FROM t) AS d'],
  [
    'postgres',
    'SELECT d.k FROM (SELECT k, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY k) AS d',
    'SELECT d.k FROM (SELECT k FROM t GROUP BY k) AS d',
  ],
  [
    'mysql',
    'SELECT COUNT(*) AS n FROM (SELECT a, b FROM t) AS d',
    'SELECT COUNT(*) AS n FROM (SELECT a FROM t) AS d',
  ],
  [
    'bigquery',
    'WITH c AS (SELECT a, b, x + 1 AS y FROM t) SELECT c.a FROM c JOIN c AS c2 ON c2.y = c.a',
    'WITH c AS (SELECT a, x + 1 AS y FROM t) SELECT c.a FROM c JOIN c AS c2 ON c2.y = c.a',
  ],
  [
    'snowflake',
    'SELECT 1 AS one FROM (SELECT a, b FROM t) AS d WHERE EXISTS (SELECT 1 FROM u WHERE u.x = d.b)',
    'SELECT 1 AS one FROM (SELECT b FROM t) AS d WHERE EXISTS (SELECT 1 FROM u WHERE u.x = d.b)',
  ],
  [
    'snowflake',
    'SELECT d.a FROM (SELECT a, b + 1 AS c, c * 2 AS e FROM t) AS d',
    'SELECT d.a FROM (SELECT a FROM t) AS d',
  ],
  // Must not remove: the result's own list, `*` / `t.*` / the row as a value, USING, DISTINCT, ordinals, an
  // alias the body reads, aggregate without GROUP BY, set-returning function, set-operation body, column list,
  // a CTE read through `*`.
  same('postgres', 'SELECT a, b FROM t'),
  same('postgres', 'SELECT * FROM (SELECT a, b FROM t) AS d'),
  same('postgres', 'SELECT d.* FROM (SELECT a, b FROM t) AS d'),
  same('postgres', 'SELECT TO_JSONB(d) AS j FROM (SELECT a, b FROM t) AS d'),
  same('postgres', 'SELECT a FROM (SELECT a, b FROM t) AS d JOIN u USING (a)'),
  // NATURAL LEFT JOIN reads every same-named column (found by the fuzzer: the library calls it
  // `NaturalLeft`, which the rule took for an ordinary join and pruned the join's column).
  same(
    'mysql',
    'SELECT d2.c1 FROM (SELECT k AS c0 FROM t) AS d1 NATURAL LEFT JOIN (SELECT id AS c0, v AS c1 FROM t) AS d2',
  ),
  same(
    'postgres',
    'SELECT d2.c1 FROM (SELECT k AS c0, a FROM t) AS d1 NATURAL RIGHT JOIN (SELECT id AS c0, v AS c1 FROM t) AS d2',
  ),
  same(
    'postgres',
    'SELECT d2.c1 FROM (SELECT k AS c0, a FROM t) AS d1 NATURAL FULL JOIN (SELECT id AS c0, v AS c1 FROM t) AS d2',
  ),
  same('mysql', 'SELECT d.a FROM (SELECT DISTINCT a, b FROM t) AS d'),
  same('postgres', 'SELECT d.k FROM (SELECT k, SUM(v) AS s FROM t GROUP BY 1) AS d'),
  same('mysql', 'SELECT d.k FROM (SELECT k, v + 1 AS w FROM t ORDER BY w) AS d'),
  same('bigquery', 'SELECT d.s FROM (SELECT SUM(v) AS s, COUNT(*) AS n FROM t) AS d'),
  same('postgres', 'SELECT d.a FROM (SELECT a, GENERATE_SERIES(1, 3) AS g FROM t) AS d'),
  same('postgres', 'SELECT d.a FROM (SELECT a, b FROM t UNION ALL SELECT a, b FROM u) AS d'),
  same('postgres', 'SELECT x FROM (SELECT a, b FROM t) AS d (x, y)'),
  same('snowflake', 'WITH c AS (SELECT a, b FROM t) SELECT a FROM c WHERE a IN (SELECT * FROM c)'),
];

describe('unused-columns', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [unusedColumns] }).sql).toBe(expected);
  });
});
