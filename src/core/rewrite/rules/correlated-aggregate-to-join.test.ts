import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../sql/dialect.ts';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { correlatedAggregateToJoin } from './correlated-aggregate-to-join.ts';

const same = (d: SqlDialect, sql: string): Golden => [d, sql, sql];

// t.k / u.k / v.k integers; t.s (general_ci) vs u.s (bin) and u.kv (general_ci); t.c CHAR(4) vs u.c TEXT;
// t.d DATE vs u.d TIMESTAMP; t.f double; t.n bare NUMERIC.
const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k AND u.y > 1) AS n FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, COUNT(*) AS sq1_v FROM u WHERE u.y > 1 GROUP BY u.k) AS sq1 ON sq1.sq1_k1 = o.k',
  ],
  [
    'bigquery',
    'SELECT o.a FROM t AS o WHERE o.v > (SELECT AVG(u.y) FROM u WHERE u.a = o.a AND u.b = o.b)',
    'SELECT o.a FROM t AS o LEFT JOIN (SELECT u.a sq1_k1, u.b sq1_k2, AVG(u.y) AS sq1_v FROM u GROUP BY u.a, u.b) sq1 ON sq1.sq1_k1 = o.a AND sq1.sq1_k2 = o.b WHERE o.v > sq1.sq1_v',
  ],
  [
    'snowflake',
    'SELECT o.a, (SELECT MAX(u.y) FROM u WHERE o.k = u.k) AS m, (SELECT MIN(u.y) FROM u WHERE u.k = o.k) AS lo FROM t AS o',
    'SELECT o.a, sq1.sq1_v m, sq2.sq2_v lo FROM t o LEFT JOIN (SELECT u.k sq1_k1, MAX(u.y) AS sq1_v FROM u GROUP BY u.k) AS sq1 ON sq1.sq1_k1 = o.k LEFT JOIN (SELECT u.k AS sq2_k1, MIN(u.y) AS sq2_v FROM u GROUP BY u.k) sq2 ON sq2.sq2_k1 = o.k',
  ],
  [
    'postgres',
    'SELECT p_partkey FROM lineitem, part WHERE p_partkey = l_partkey AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)',
    'SELECT p_partkey FROM lineitem CROSS JOIN part LEFT JOIN (SELECT l_partkey AS sq1_k1, AVG(l_quantity) AS sq1_v FROM lineitem GROUP BY l_partkey) sq1 ON sq1.sq1_k1 = p_partkey WHERE p_partkey = l_partkey AND l_quantity < (0.2 * sq1.sq1_v)',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(DISTINCT u.y) FROM u WHERE u.k = o.k) AS n FROM t AS o JOIN w ON w.a = o.a',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o JOIN w ON w.a = o.a LEFT JOIN (SELECT u.k sq1_k1, COUNT(DISTINCT u.y) AS sq1_v FROM u GROUP BY u.k) AS sq1 ON sq1.sq1_k1 = o.k',
  ],
  [
    'mysql',
    'SELECT o.a, (SELECT COUNT(*) FROM w WHERE w.s = o.s) AS n FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT w.s sq1_k1, COUNT(*) AS sq1_v FROM w GROUP BY w.s) sq1 ON sq1.sq1_k1 = o.s',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.kv = o.s) AS n FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT u.kv sq1_k1, COUNT(*) AS sq1_v FROM u GROUP BY u.kv) sq1 ON sq1.sq1_k1 = o.s',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM t AS i WHERE i.n = o.n) AS n FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT i.n sq1_k1, COUNT(*) AS sq1_v FROM t AS i GROUP BY i.n) sq1 ON sq1.sq1_k1 = o.n',
  ],
  [
    'postgres',
    'SELECT o.a, COUNT(*) AS c FROM t AS o WHERE o.v > (SELECT COUNT(*) FROM u WHERE u.k = o.k) GROUP BY o.a',
    'SELECT o.a, COUNT(*) AS c FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, COUNT(*) AS sq1_v FROM u GROUP BY u.k) sq1 ON sq1.sq1_k1 = o.k WHERE o.v > COALESCE(sq1.sq1_v, 0) GROUP BY o.a',
  ],
  [
    'postgres',
    'SELECT sq1.a, (SELECT COUNT(*) FROM u WHERE u.k = sq1.k) AS n FROM t AS sq1',
    'SELECT sq1.a, COALESCE(sq2.sq2_v, 0) AS n FROM t AS sq1 LEFT JOIN (SELECT u.k sq2_k1, COUNT(*) AS sq2_v FROM u GROUP BY u.k) sq2 ON sq2.sq2_k1 = sq1.k',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FILTER (WHERE u.y > 2) FROM u WHERE u.k = o.k) AS n FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, COUNT(*) FILTER (WHERE u.y > 2) AS sq1_v FROM u GROUP BY u.k) sq1 ON sq1.sq1_k1 = o.k',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k AND u.a = o.x) AS n FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, u.a sq1_k2, COUNT(*) AS sq1_v FROM u GROUP BY u.k, u.a) sq1 ON sq1.sq1_k1 = o.k AND sq1.sq1_k2 = o.x',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k) AS n FROM t AS o ORDER BY n DESC LIMIT 5',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, COUNT(*) AS sq1_v FROM u GROUP BY u.k) sq1 ON sq1.sq1_k1 = o.k ORDER BY n DESC LIMIT 5',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k) AS n FROM t AS o WHERE o.a IN (SELECT v.k FROM v WHERE v.z > (SELECT SUM(u.y) FROM u WHERE u.a = v.k))',
    'SELECT o.a, COALESCE(sq2.sq2_v, 0) AS n FROM t AS o LEFT JOIN (SELECT u.k sq2_k1, COUNT(*) AS sq2_v FROM u GROUP BY u.k) sq2 ON sq2.sq2_k1 = o.k WHERE o.a IN (SELECT v.k FROM v LEFT JOIN (SELECT u.a sq1_k1, SUM(u.y) AS sq1_v FROM u GROUP BY u.a) sq1 ON sq1.sq1_k1 = v.k WHERE v.z > sq1.sq1_v)',
  ],
  [
    'postgres',
    'SELECT DISTINCT o.a, (SELECT MAX(u.y) FROM u WHERE u.k = o.k) AS m FROM t AS o',
    'SELECT DISTINCT o.a, sq1.sq1_v m FROM t o LEFT JOIN (SELECT u.k sq1_k1, MAX(u.y) AS sq1_v FROM u GROUP BY u.k) sq1 ON sq1.sq1_k1 = o.k',
  ],
  [
    'mysql',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k) + 1 AS n FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) + 1 AS n FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, COUNT(*) AS sq1_v FROM u GROUP BY u.k) sq1 ON sq1.sq1_k1 = o.k',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k) AS n FROM t AS o WHERE (SELECT COUNT(*) FROM u WHERE u.k = o.k) > 2',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, COUNT(*) AS sq1_v FROM u GROUP BY u.k) sq1 ON sq1.sq1_k1 = o.k LEFT JOIN (SELECT u.k sq2_k1, COUNT(*) AS sq2_v FROM u GROUP BY u.k) sq2 ON sq2.sq2_k1 = o.k WHERE COALESCE(sq2.sq2_v, 0) > 2',
  ],
  [
    'postgres',
    "SELECT ps_partkey FROM partsupp WHERE ps_availqty > (SELECT 0.5 * SUM(l_quantity) FROM lineitem WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey AND l_shipdate >= DATE '1994-01-01')",
    "SELECT ps_partkey FROM partsupp LEFT JOIN (SELECT l_partkey AS sq1_k1, l_suppkey AS sq1_k2, SUM(l_quantity) AS sq1_v FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' GROUP BY l_partkey, l_suppkey) sq1 ON sq1.sq1_k1 = ps_partkey AND sq1.sq1_k2 = ps_suppkey WHERE ps_availqty > (0.5 * sq1.sq1_v)",
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k) AS n, o.* FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n, o.* FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, COUNT(*) AS sq1_v FROM u GROUP BY u.k) AS sq1 ON sq1.sq1_k1 = o.k',
  ],
  [
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u JOIN v ON v.k = u.a WHERE u.k = o.k) AS n FROM t AS o',
    'SELECT o.a, COALESCE(sq1.sq1_v, 0) AS n FROM t AS o LEFT JOIN (SELECT u.k sq1_k1, COUNT(*) AS sq1_v FROM u JOIN v ON v.k = u.a GROUP BY u.k) sq1 ON sq1.sq1_k1 = o.k',
  ],
  // Must not fire:
  // correlated-aggregate-to-join/single-aggregate-output
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k GROUP BY u.b) AS n FROM t AS o'),
  // correlated-aggregate-to-join/single-aggregate-output
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k LIMIT 1) AS n FROM t AS o'),
  // correlated-aggregate-to-join/single-aggregate-output
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) + o.b FROM u WHERE u.k = o.k) AS n FROM t AS o'),
  // correlated-aggregate-to-join/correlated-by-key-equality
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k > o.k) AS n FROM t AS o'),
  // correlated-aggregate-to-join/correlated-by-key-equality
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k OR u.y = 1) AS n FROM t AS o'),
  // correlated-aggregate-to-join/correlated-by-key-equality
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k + 1 = o.k) AS n FROM t AS o'),
  // correlated-aggregate-to-join/correlated-by-key-equality
  same(
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k AND u.y > RANDOM()) AS n FROM t AS o',
  ),
  // correlated-aggregate-to-join/join-keys-compare-alike
  same('mysql', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.s = o.s) AS n FROM t AS o'),
  // correlated-aggregate-to-join/join-keys-compare-alike
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.c = o.c) AS n FROM t AS o'),
  // correlated-aggregate-to-join/join-keys-compare-alike
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM t AS i WHERE i.f = o.f) AS n FROM t AS o'),
  // correlated-aggregate-to-join/join-keys-compare-alike
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.d = o.d) AS n FROM t AS o'),
  // correlated-aggregate-to-join/outer-rows-kept
  same('postgres', 'SELECT * FROM t AS o WHERE o.v > (SELECT COUNT(*) FROM u WHERE u.k = o.k)'),
  // correlated-aggregate-to-join/outer-rows-kept
  same(
    'postgres',
    'SELECT o.a, COUNT(*) AS c, (SELECT COUNT(*) FROM u WHERE u.k = o.a) AS n FROM t AS o GROUP BY o.a',
  ),
  // correlated-aggregate-to-join/outer-rows-kept
  same('postgres', 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k) FROM t AS o'),
  // correlated-aggregate-to-join/outer-rows-kept
  same(
    'postgres',
    'SELECT o.a FROM t AS o, w JOIN v ON v.k = w.a WHERE o.v > (SELECT COUNT(*) FROM u WHERE u.k = o.k)',
  ),
  // correlated-aggregate-to-join/single-aggregate-output
  same(
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM (SELECT * FROM u WHERE u.k = o.k) AS x) AS n FROM t AS o',
  ),
  // correlated-aggregate-to-join/single-aggregate-output
  same(
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k AND EXISTS (SELECT 1 FROM v WHERE v.k = u.a)) AS n FROM t AS o',
  ),
  // correlated-aggregate-to-join/correlated-by-key-equality
  same(
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u JOIN v ON v.k = o.a WHERE u.k = o.k) AS n FROM t AS o',
  ),
];

describe('correlated-aggregate-to-join', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [correlatedAggregateToJoin], catalog: GOLDEN_CATALOG });
    expect(out.fallback, out.reason).toBe(false);
    expect(out.sql).toBe(expected);
  });

  it('needs the catalog: without it no column can be placed in its scope', () => {
    const sql = 'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k) AS n FROM t AS o';
    expect(rewriteSql(sql, 'postgres', { rules: [correlatedAggregateToJoin], catalog: null }).sql).toBe(sql);
  });
});
