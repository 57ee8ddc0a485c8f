import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { simplifyBooleans } from './simplify-booleans.ts';

const GOLDEN: Golden[] = [
  ['postgres', 'SELECT a FROM t WHERE 1 = 1 AND b > 2', 'SELECT a FROM t WHERE b > 2'],
  ['postgres', 'SELECT a FROM t WHERE b > 2 OR 1 = 0', 'SELECT a FROM t WHERE b > 2'],
  ['postgres', 'SELECT a FROM t WHERE 1 = 1', 'SELECT a FROM t'],
  ['postgres', 'SELECT a FROM t WHERE NOT NOT b', 'SELECT a FROM t WHERE b'],
  ['postgres', "SELECT a FROM t WHERE 'x' = 'x' AND b IS NULL", 'SELECT a FROM t WHERE b IS NULL'],
  ['postgres', 'SELECT a FROM t WHERE b = NULL OR c = 1', 'SELECT a FROM t WHERE NULL OR c = 1'],
  ['postgres', 'SELECT a FROM t WHERE 2 > 1.5 AND (1 = 0 OR c = 1)', 'SELECT a FROM t WHERE (c = 1)'],
  ['postgres', 'SELECT a FROM t JOIN u ON u.k = t.k AND 1 = 1', 'SELECT a FROM t JOIN u ON u.k = t.k'],
  [
    'postgres',
    'SELECT a, COUNT(*) FROM t GROUP BY a HAVING 1 < 2 AND COUNT(*) > 1',
    'SELECT a, COUNT(*) FROM t GROUP BY a HAVING COUNT(*) > 1',
  ],
  ['mysql', 'SELECT a FROM t WHERE 1 = 1 AND b > 2', 'SELECT a FROM t WHERE b > 2'],
  ['mysql', 'SELECT a FROM t WHERE TRUE OR b > 2', 'SELECT a FROM t'],
  ['bigquery', 'SELECT a FROM t WHERE 1 = 1 AND b > 2', 'SELECT a FROM t WHERE b > 2'],
  ['bigquery', 'SELECT a FROM t WHERE b > 2 AND FALSE', 'SELECT a FROM t WHERE FALSE'],
  ['snowflake', 'SELECT a FROM t WHERE 1 = 1 AND b > 2', 'SELECT a FROM t WHERE b > 2'],
  ['snowflake', "SELECT a FROM t WHERE b > 2 AND 'a' <> 'b'", 'SELECT a FROM t WHERE b > 2'],
  // Must not fire: x = x is NULL when x is NULL; MySQL collation makes 'a' = 'A' true; output expressions.
  ['postgres', 'SELECT a FROM t WHERE b = b', 'SELECT a FROM t WHERE b = b'],
  ['mysql', "SELECT a FROM t WHERE 'a' = 'A'", "SELECT a FROM t WHERE 'a' = 'A'"],
  ['postgres', 'SELECT 1 = 1 FROM t', 'SELECT 1 = 1 FROM t'],
  ['postgres', 'SELECT a FROM t WHERE 1 = 1 + 0', 'SELECT a FROM t WHERE 1 = 1 + 0'],
  // Only boolean positions fold: inside a comparison MySQL reads NOT NOT b as 0/1, b itself as its value
  // (b = 5: (NOT NOT b) = 1 is TRUE, b = 1 is FALSE); an untyped NULL would change a CASE's type.
  ['mysql', 'SELECT a FROM t WHERE (NOT NOT b) = 1', 'SELECT a FROM t WHERE (NOT NOT b) = 1'],
  ['mysql', 'SELECT a FROM t WHERE (TRUE AND b) = 1', 'SELECT a FROM t WHERE (TRUE AND b) = 1'],
  [
    'postgres',
    'SELECT a FROM t WHERE CASE WHEN b > 0 THEN NULL = 1 ELSE c END',
    'SELECT a FROM t WHERE CASE WHEN b > 0 THEN NULL = 1 ELSE c END',
  ],
];

describe('simplify-booleans', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [simplifyBooleans] });
    expect(out.fallback).toBe(false);
    expect(out.sql).toBe(expected);
    expect(out.rulesApplied).toEqual(input === expected ? [] : ['simplify-booleans']);
  });
});
