import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { subqueryOrderBy } from './subquery-order-by.ts';

const GOLDEN: Golden[] = [
  ['postgres', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d', 'SELECT a FROM (SELECT a FROM t) AS d'],
  [
    'postgres',
    'WITH c AS (SELECT a FROM t ORDER BY a DESC) SELECT a FROM c',
    'WITH c AS (SELECT a FROM t) SELECT a FROM c',
  ],
  ['mysql', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d', 'SELECT a FROM (SELECT a FROM t) AS d'],
  ['bigquery', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d', 'SELECT a FROM (SELECT a FROM t) AS d'],
  [
    'snowflake',
    'SELECT a FROM t WHERE a IN (SELECT b FROM u ORDER BY b)',
    'SELECT a FROM t WHERE a IN (SELECT b FROM u)',
  ],
  // Must not fire: a row limit makes the order choose rows; the outermost ORDER BY is the result's order.
  [
    'postgres',
    'SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3) AS d',
    'SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3) AS d',
  ],
  ['postgres', 'SELECT a FROM t ORDER BY a', 'SELECT a FROM t ORDER BY a'],
  ['postgres', '(SELECT a FROM t ORDER BY a)', '(SELECT a FROM t ORDER BY a)'],
];

describe('subquery-order-by', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [subqueryOrderBy] }).sql).toBe(expected);
  });
});
