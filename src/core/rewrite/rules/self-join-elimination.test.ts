import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { selfJoinElimination } from './self-join-elimination.ts';

const GOLDEN: Golden[] = [
  [
    'postgres',
    "SELECT a.o_orderkey, b.o_totalprice FROM orders AS a JOIN orders AS b ON b.o_orderkey = a.o_orderkey WHERE b.o_orderdate > '1998-01-01'",
    "SELECT a.o_orderkey, a.o_totalprice AS o_totalprice FROM orders AS a WHERE a.o_orderdate > '1998-01-01'",
  ],
  [
    'mysql',
    'SELECT a.a, b.b FROM t AS a JOIN t AS b ON a.id = b.id AND b.b > 1 JOIN u ON u.k = b.k',
    'SELECT a.a, a.b AS b FROM t AS a JOIN u ON u.k = a.k WHERE a.b > 1',
  ],
  ['postgres', 'SELECT t.a, b.b FROM t LEFT JOIN t AS b ON t.id = b.id', 'SELECT t.a, t.b AS b FROM t'],
  [
    'bigquery',
    'SELECT a.a, b.b FROM t AS a INNER JOIN t AS b ON a.id = b.id',
    'SELECT a.a, a.b AS b FROM t AS a',
  ],
  [
    'snowflake',
    'SELECT a.a, b.b AS bb FROM t AS a JOIN t AS b ON a.id = b.id',
    'SELECT a.a, a.b AS bb FROM t AS a',
  ],
  [
    'postgres',
    'SELECT a.a, (SELECT MAX(u.y) FROM u WHERE u.id = b.id) AS m FROM t AS a JOIN t AS b ON a.id = b.id',
    'SELECT a.a, (SELECT MAX(u.y) FROM u WHERE u.id = a.id) AS m FROM t AS a',
  ],
  // Must not fire: not the key, extra ON of a LEFT JOIN, a star, a NULL-padded kept side, a shadowing scope,
  // a table without a key, RIGHT JOIN.
  [
    'postgres',
    'SELECT a.a, b.b FROM t AS a JOIN t AS b ON a.a = b.a',
    'SELECT a.a, b.b FROM t AS a JOIN t AS b ON a.a = b.a',
  ],
  [
    'postgres',
    'SELECT a.a, b.b FROM t AS a LEFT JOIN t AS b ON a.id = b.id AND b.b > 1',
    'SELECT a.a, b.b FROM t AS a LEFT JOIN t AS b ON a.id = b.id AND b.b > 1',
  ],
  [
    'postgres',
    'SELECT a.a, b.* FROM t AS a JOIN t AS b ON a.id = b.id',
    'SELECT a.a, b.* FROM t AS a JOIN t AS b ON a.id = b.id',
  ],
  [
    'postgres',
    'SELECT a.a FROM u AS x LEFT JOIN t AS a ON a.id = x.id JOIN t AS b ON a.id = b.id',
    'SELECT a.a FROM u AS x LEFT JOIN t AS a ON a.id = x.id JOIN t AS b ON a.id = b.id',
  ],
  [
    'postgres',
    'SELECT a.a FROM t AS a JOIN t AS b ON a.id = b.id WHERE EXISTS (SELECT 1 FROM u AS b WHERE b.id = a.id)',
    'SELECT a.a FROM t AS a JOIN t AS b ON a.id = b.id WHERE EXISTS (SELECT 1 FROM u AS b WHERE b.id = a.id)',
  ],
  [
    'postgres',
    'SELECT a.a, b.c FROM w AS a JOIN w AS b ON a.a = b.a',
    'SELECT a.a, b.c FROM w AS a JOIN w AS b ON a.a = b.a',
  ],
  [
    'postgres',
    'SELECT a.a, b.b FROM t AS a JOIN t AS b ON a.id = b.id RIGHT JOIN u ON u.id = a.id',
    'SELECT a.a, b.b FROM t AS a JOIN t AS b ON a.id = b.id RIGHT JOIN u ON u.id = a.id',
  ],
];

describe('self-join-elimination', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [selfJoinElimination], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
});
