import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { joinElimination } from './join-elimination.ts';

const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT o.o_orderkey FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey',
    'SELECT o.o_orderkey FROM orders AS o',
  ],
  [
    'postgres',
    'SELECT o_orderkey FROM orders LEFT JOIN (SELECT c_custkey, COUNT(*) AS n FROM customer GROUP BY c_custkey) AS x ON x.c_custkey = o_custkey',
    'SELECT o_orderkey FROM orders',
  ],
  [
    'mysql',
    'SELECT o.o_orderkey FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey AND c.c_acctbal > 0',
    'SELECT o.o_orderkey FROM orders AS o',
  ],
  [
    'bigquery',
    'SELECT l.l_quantity FROM lineitem AS l LEFT JOIN orders AS o ON o.o_orderkey = l.l_orderkey',
    'SELECT l.l_quantity FROM lineitem AS l',
  ],
  [
    'snowflake',
    'SELECT ps_partkey FROM partsupp LEFT JOIN part ON part.p_partkey = ps_partkey',
    'SELECT ps_partkey FROM partsupp',
  ],
  [
    'postgres',
    'SELECT l.l_quantity FROM lineitem AS l LEFT JOIN partsupp AS ps ON ps.ps_partkey = l.l_partkey AND ps.ps_suppkey = l.l_suppkey',
    'SELECT l.l_quantity FROM lineitem AS l',
  ],
  // Must not fire: a column of the joined table is used; the key is only partly equated (duplicates);
  // an inner join (it filters); the table is unknown to the catalog.
  [
    'postgres',
    'SELECT o.o_orderkey, c.c_name FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey',
    'SELECT o.o_orderkey, c.c_name FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey',
  ],
  [
    'postgres',
    'SELECT l.l_quantity FROM lineitem AS l LEFT JOIN partsupp AS ps ON ps.ps_partkey = l.l_partkey',
    'SELECT l.l_quantity FROM lineitem AS l LEFT JOIN partsupp AS ps ON ps.ps_partkey = l.l_partkey',
  ],
  [
    'postgres',
    'SELECT o.o_orderkey FROM orders AS o JOIN customer AS c ON c.c_custkey = o.o_custkey',
    'SELECT o.o_orderkey FROM orders AS o JOIN customer AS c ON c.c_custkey = o.o_custkey',
  ],
  [
    'postgres',
    'SELECT o.o_orderkey FROM orders AS o LEFT JOIN cust2 AS c ON c.c_custkey = o.o_custkey',
    'SELECT o.o_orderkey FROM orders AS o LEFT JOIN cust2 AS c ON c.c_custkey = o.o_custkey',
  ],
  [
    'postgres',
    'SELECT * FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey',
    'SELECT * FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey',
  ],
  [
    'postgres',
    'SELECT o.o_orderkey FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey WHERE c_name IS NULL',
    'SELECT o.o_orderkey FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey WHERE c_name IS NULL',
  ],
];

const same = (d: Golden[0], sql: string): Golden => [d, sql, sql];
const NR = 'FROM nation AS n LEFT JOIN region AS r ON r.r_regionkey = n.n_regionkey';

/**
 * Every way a column of the joined item can still be read (issue 14, class 2): each must keep the join.
 * Removing it would make the query fail, or silently change it (a NATURAL JOIN becoming a cross join).
 */
const STILL_READ: Golden[] = [
  same('postgres', `SELECT COUNT(*) AS c ${NR} JOIN region AS r2 USING (r_name)`),
  same('postgres', `SELECT COUNT(*) AS c ${NR} NATURAL JOIN region AS r2`),
  same('mysql', `SELECT COUNT(*) AS c ${NR} NATURAL JOIN region AS r2`),
  same('postgres', `SELECT COUNT(*) AS c ${NR} NATURAL LEFT JOIN region AS r2`),
  same(
    'postgres',
    `SELECT COUNT(*) AS c FROM nation AS n JOIN region AS r0 ON r0.r_regionkey = n.n_regionkey LEFT JOIN region AS r ON r.r_regionkey = n.n_regionkey JOIN nation AS n2 USING (n_nationkey)`,
  ),
  same('postgres', `SELECT r.* ${NR}`),
  same('postgres', `SELECT n.n_name, r ${NR}`),
  same('postgres', `SELECT n.n_name ${NR} ORDER BY r_name`),
  same('postgres', `SELECT n.n_name ${NR} GROUP BY n.n_name, r.r_name`),
  same('postgres', `SELECT n.n_name, COUNT(*) AS c ${NR} GROUP BY n.n_name HAVING MAX(r.r_name) > 'A'`),
  same('snowflake', `SELECT n.n_name ${NR} QUALIFY ROW_NUMBER() OVER (ORDER BY r.r_name) = 1`),
  same('postgres', `SELECT n.n_name, ROW_NUMBER() OVER w AS rn ${NR} WINDOW w AS (ORDER BY r.r_name)`),
  same('postgres', `SELECT DISTINCT ON (r.r_name) n.n_name ${NR}`),
  same(
    'postgres',
    `SELECT n.n_name, (SELECT COUNT(*) FROM supplier AS s WHERE s.s_nationkey = r.r_regionkey) AS c ${NR}`,
  ),
  same(
    'postgres',
    `SELECT n.n_name ${NR} WHERE EXISTS (SELECT 1 FROM supplier WHERE s_suppkey = r_regionkey)`,
  ),
  same('postgres', `SELECT n.n_name ${NR} LEFT JOIN LATERAL (SELECT r.r_name AS x) AS l ON TRUE`),
  same(
    'postgres',
    'SELECT x FROM nation AS n LEFT JOIN region AS r(r_regionkey, x) ON r.r_regionkey = n.n_regionkey',
  ),
  same(
    'postgres',
    'SELECT n.n_name, r_name FROM nation AS n LEFT JOIN (SELECT DISTINCT * FROM region) AS r ON r.r_regionkey = n.n_regionkey',
  ),
  same(
    'postgres',
    'SELECT n.n_name FROM nation AS n LEFT JOIN (SELECT DISTINCT * FROM region) AS r ON r.r_regionkey = n.n_regionkey ORDER BY r_name',
  ),
  // The key compared in another type: a VARCHAR key equal to a number can match '1' and '01' (MySQL, DuckDB).
  same('mysql', 'SELECT t.id FROM t LEFT JOIN u ON u.kv = t.a'),
  same('postgres', 'SELECT t.id FROM t LEFT JOIN u ON u.id = t.s'),
];

const STILL_REMOVED: Golden[] = [
  ['postgres', `SELECT n.n_name ${NR} ORDER BY 1`, 'SELECT n.n_name FROM nation AS n ORDER BY 1'],
  ['mysql', 'SELECT t.id FROM t LEFT JOIN u ON u.id = t.a', 'SELECT t.id FROM t'],
  ['postgres', `SELECT COUNT(*) AS c ${NR}`, 'SELECT COUNT(*) AS c FROM nation AS n'],
];

describe('join-elimination', () => {
  it.each(STILL_READ)('keeps a join still read: %s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [joinElimination], catalog: GOLDEN_CATALOG });
    expect(out.fallback, out.reason).toBe(false);
    expect(out.sql).toBe(expected);
  });
  it.each(STILL_REMOVED)('removes an unread join: %s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [joinElimination], catalog: GOLDEN_CATALOG }).sql).toBe(
      expected,
    );
  });
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [joinElimination] }).sql).toBe(expected);
  });
});
