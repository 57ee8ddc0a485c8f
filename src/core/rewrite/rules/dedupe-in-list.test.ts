import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { dedupeInList } from './dedupe-in-list.ts';

const GOLDEN: Golden[] = [
  ['postgres', 'SELECT a FROM t WHERE a IN (1, 2, 1)', 'SELECT a FROM t WHERE a IN (1, 2)'],
  ['postgres', "SELECT a FROM t WHERE a NOT IN ('x', 'x')", "SELECT a FROM t WHERE a NOT IN ('x')"],
  ['mysql', 'SELECT a FROM t WHERE a IN (1, 2, 2, 1)', 'SELECT a FROM t WHERE a IN (1, 2)'],
  ['bigquery', "SELECT a FROM t WHERE a IN ('x', 'y', 'x')", "SELECT a FROM t WHERE a IN ('x', 'y')"],
  ['snowflake', 'SELECT a FROM t WHERE a IN (3, 3)', 'SELECT a FROM t WHERE a IN (3)'],
  ['postgres', 'SELECT a FROM t WHERE a IN (1, 2)', 'SELECT a FROM t WHERE a IN (1, 2)'],
  [
    'postgres',
    'SELECT a FROM t WHERE a IN (RANDOM(), RANDOM())',
    'SELECT a FROM t WHERE a IN (RANDOM(), RANDOM())',
  ],
];

describe('dedupe-in-list', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [dedupeInList] });
    expect(out.sql).toBe(expected);
  });
});
