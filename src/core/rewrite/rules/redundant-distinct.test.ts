import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { redundantDistinct } from './redundant-distinct.ts';

const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT DISTINCT a, COUNT(*) AS n FROM t GROUP BY a',
    'SELECT a, COUNT(*) AS n FROM t GROUP BY a',
  ],
  [
    'postgres',
    'SELECT a FROM t WHERE a IN (SELECT DISTINCT b FROM u)',
    'SELECT a FROM t WHERE a IN (SELECT b FROM u)',
  ],
  ['mysql', 'SELECT DISTINCT a, b FROM t GROUP BY a, b', 'SELECT a, b FROM t GROUP BY a, b'],
  ['bigquery', 'SELECT DISTINCT a, SUM(b) AS s FROM t GROUP BY 1', 'SELECT a, SUM(b) AS s FROM t GROUP BY 1'],
  [
    'snowflake',
    'SELECT a FROM t WHERE EXISTS(SELECT DISTINCT b FROM u)',
    'SELECT a FROM t WHERE EXISTS(SELECT b FROM u)',
  ],
  // Must not fire: a group key not output (COUNT over distinct output rows), ROLLUP, a limit, window.
  [
    'postgres',
    'SELECT DISTINCT COUNT(*) AS n FROM t GROUP BY a',
    'SELECT DISTINCT COUNT(*) AS n FROM t GROUP BY a',
  ],
  ['postgres', 'SELECT DISTINCT b AS a FROM t GROUP BY a, b', 'SELECT DISTINCT b AS a FROM t GROUP BY a, b'],
  [
    'postgres',
    'SELECT a FROM t WHERE a IN (SELECT DISTINCT b FROM u LIMIT 2)',
    'SELECT a FROM t WHERE a IN (SELECT DISTINCT b FROM u LIMIT 2)',
  ],
  [
    'postgres',
    'SELECT DISTINCT a, COUNT(*) OVER () AS n FROM t GROUP BY a',
    'SELECT DISTINCT a, COUNT(*) OVER () AS n FROM t GROUP BY a',
  ],
];

describe('redundant-distinct', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [redundantDistinct] }).sql).toBe(expected);
  });
});
