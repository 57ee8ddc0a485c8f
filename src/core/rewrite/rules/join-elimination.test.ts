import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
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

describe('join-elimination', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [joinElimination] }).sql).toBe(expected);
  });
});
