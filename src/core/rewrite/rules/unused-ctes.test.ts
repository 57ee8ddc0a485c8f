import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { unusedCtes } from './unused-ctes.ts';

const GOLDEN: Golden[] = [
  [
    'postgres',
    'WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS y) SELECT x FROM a',
    'WITH a AS (SELECT 1 AS x) SELECT x FROM a',
  ],
  ['postgres', 'WITH b AS (SELECT 2 AS y) SELECT x FROM t', 'SELECT x FROM t'],
  [
    'mysql',
    'WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS y) SELECT x FROM a',
    'WITH a AS (SELECT 1 AS x) SELECT x FROM a',
  ],
  ['bigquery', 'WITH b AS (SELECT 2 AS y) SELECT x FROM t', 'SELECT x FROM t'],
  [
    'snowflake',
    'WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT x FROM a',
    'WITH a AS (SELECT 1 AS x) SELECT x FROM a',
  ],
  [
    'postgres',
    'WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT x FROM b',
    'WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT x FROM b',
  ],
  [
    'postgres',
    'WITH RECURSIVE r AS (SELECT 1 AS n) SELECT 1 AS one',
    'WITH RECURSIVE r AS (SELECT 1 AS n) SELECT 1 AS one',
  ],
];

describe('unused-ctes', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [unusedCtes] }).sql).toBe(expected);
  });
  it('removes a chain of unused CTEs over the fixpoint', () => {
    const sql = 'WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT 1 AS one';
    expect(rewriteSql(sql, 'postgres', { rules: [unusedCtes] }).sql).toBe('SELECT 1 AS one');
  });
});
