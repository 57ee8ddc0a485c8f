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

const L = 'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE';
const I = 'SELECT o.a FROM o JOIN c ON c.k = o.k WHERE';
const fires = (where: string): Golden => ['postgres', `${L} ${where}`, `${I} ${where}`];
const keeps = (where: string, d: Golden[0] = 'postgres'): Golden => [d, `${L} ${where}`, `${L} ${where}`];

/**
 * Null-rejection by three-valued evaluation of the whole WHERE with c's columns NULL (issue 14, class 1):
 * each `keeps` case is TRUE for some padded row (so converting would drop rows the LEFT JOIN keeps).
 */
const THREE_VALUED: Golden[] = [
  // NULL NOT IN (empty set) is TRUE; NULL <> ALL (empty set) is TRUE; NOT EXISTS may be TRUE.
  keeps('c.x NOT IN (SELECT w.a FROM w)'),
  keeps('NOT c.x IN (SELECT w.a FROM w)'),
  keeps('c.x <> ALL (SELECT w.a FROM w)'),
  keeps('NOT EXISTS (SELECT 1 FROM w WHERE w.a = c.x)'),
  keeps('EXISTS (SELECT 1 FROM w WHERE w.a = o.k)'),
  keeps('c.x IS DISTINCT FROM 1'),
  keeps('NOT c.x IS NOT DISTINCT FROM 1'),
  keeps('COALESCE(c.x, 1) = 1'),
  keeps('COALESCE(c.x, o.b) = 1'),
  keeps('CASE WHEN c.x IS NULL THEN 1 ELSE 0 END = 1'),
  keeps('CASE WHEN c.x > 0 THEN FALSE ELSE TRUE END'),
  keeps('(c.x = 1) IS NOT TRUE'),
  keeps('c.x IS NULL OR c.y = 1'),
  keeps("CONCAT(c.s, 'a') = 'a'"),
  keeps('GREATEST(c.x, 1) = 1'),
  keeps('NULLIF(o.b, c.x) = 1'),
  keeps('my_udf(c.x) = 1'),
  keeps('c.x = 1 OR o.b = 2'),
  keeps('c.x NOT IN (SELECT w.a FROM w) AND o.b > 0'),
  keeps('c.x NOT BETWEEN 1 AND 2 OR c.x IS NULL'),
  keeps("IFNULL(c.s, 'x') = 'x'", 'mysql'),
  // Rejecting: FALSE or NULL for every value of o's columns.
  fires('c.x IN (SELECT w.a FROM w)'),
  fires('c.x = ANY (SELECT w.a FROM w)'),
  fires('c.x NOT IN (1, 2)'),
  fires('c.x IS NOT DISTINCT FROM 1'),
  fires('COALESCE(c.x, 0) = 1'),
  fires('CASE WHEN c.x > 0 THEN TRUE END'),
  fires('NOT (c.x = 1)'),
  fires('(c.x = 1 OR c.y = 2) AND o.b = 2'),
  fires("UPPER(c.s) = 'A' OR c.x + 1 > o.b"),
  fires('c.x IS NOT NULL AND o.b NOT IN (SELECT w.a FROM w)'),
  fires('c.x BETWEEN o.b AND 5'),
  fires('(c.x = 1) IS TRUE'),
];

describe('outer-join-simplification', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [outerJoinSimplification] }).sql).toBe(expected);
  });
  it.each(THREE_VALUED)('three-valued: %s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [outerJoinSimplification] });
    expect(out.sql).toBe(expected);
    if (input === expected) expect(out.refusals).toContain('outer-join-simplification/where-rejects-nulls');
  });
  it("reads an unqualified column as the joined table's only when the catalog says so", () => {
    const sql = 'SELECT n.n_name FROM nation AS n LEFT JOIN region AS r ON r.r_regionkey = n.n_regionkey';
    expect(
      rewriteSql(`${sql} WHERE r_name = 'ASIA'`, 'postgres', { rules: [outerJoinSimplification] }).sql,
    ).toBe(`${sql.replace('LEFT JOIN', 'JOIN')} WHERE r_name = 'ASIA'`);
    const unknown = 'SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE x = 1';
    expect(rewriteSql(unknown, 'postgres', { rules: [outerJoinSimplification] }).sql).toBe(unknown);
  });
});
