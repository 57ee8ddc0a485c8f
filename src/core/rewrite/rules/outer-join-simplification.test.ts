import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { outerJoinSimplification } from './outer-join-simplification.ts';

const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x = 1',
    'SELECT o.a FROM o JOIN c ON c.k = o.k WHERE c.x = 1',
  ],
  [
    'postgres',
    'SELECT o.a FROM o LEFT OUTER JOIN c AS cc ON cc.k = o.k WHERE o.b > 0 AND cc.x IS NOT NULL',
    'SELECT o.a FROM o JOIN c AS cc ON cc.k = o.k WHERE o.b > 0 AND cc.x IS NOT NULL',
  ],
  [
    'mysql',
    "SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x LIKE 'a%'",
    "SELECT o.a FROM o JOIN c ON c.k = o.k WHERE c.x LIKE 'a%'",
  ],
  [
    'bigquery',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x IN (1, 2)',
    'SELECT o.a FROM o JOIN c ON c.k = o.k WHERE c.x IN (1, 2)',
  ],
  [
    'snowflake',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x BETWEEN 1 AND 2',
    'SELECT o.a FROM o JOIN c ON c.k = o.k WHERE c.x BETWEEN 1 AND 2',
  ],
  // Must not fire: IS NULL (anti-join), OR, COALESCE, the left side's column, FULL JOIN, condition in ON.
  [
    'postgres',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x IS NULL',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x IS NULL',
  ],
  [
    'postgres',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x = 1 OR o.b = 2',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x = 1 OR o.b = 2',
  ],
  [
    'postgres',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE COALESCE(c.x, 0) = 0',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE COALESCE(c.x, 0) = 0',
  ],
  [
    'postgres',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE o.x = 1',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE o.x = 1',
  ],
  [
    'postgres',
    'SELECT o.a FROM o FULL JOIN c ON c.k = o.k WHERE c.x = 1',
    'SELECT o.a FROM o FULL JOIN c ON c.k = o.k WHERE c.x = 1',
  ],
  [
    'postgres',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k AND c.x = 1',
    'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k AND c.x = 1',
  ],
];

describe('outer-join-simplification', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [outerJoinSimplification] }).sql).toBe(expected);
  });
});
