import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
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

/** DISTINCT over a derived table or CTE already unique on what the DISTINCT outputs (issue 21). */
const OVER_UNIQUE: Golden[] = [
  [
    'postgres',
    'SELECT DISTINCT x.k, x.n FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) AS x WHERE x.n > 1',
    'SELECT x.k, x.n FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) AS x WHERE x.n > 1',
  ],
  [
    'mysql',
    'SELECT DISTINCT s, m FROM (SELECT s, MAX(v) AS m FROM t GROUP BY s) AS x ORDER BY m',
    'SELECT s, m FROM (SELECT s, MAX(v) AS m FROM t GROUP BY s) AS x ORDER BY m',
  ],
  [
    'bigquery',
    'WITH c AS (SELECT DISTINCT a, b FROM t) SELECT DISTINCT b, a FROM c WHERE a > 1',
    'WITH c AS (SELECT DISTINCT a, b FROM t) SELECT b, a FROM c WHERE a > 1',
  ],
  [
    'snowflake',
    'SELECT DISTINCT x.pk, x.a FROM (SELECT id AS pk, a FROM t WHERE b > 1) AS x',
    'SELECT x.pk, x.a FROM (SELECT id AS pk, a FROM t WHERE b > 1) AS x',
  ],
  [
    'postgres',
    'SELECT DISTINCT g, n FROM (SELECT a + 1 AS g, k, COUNT(*) AS n FROM t GROUP BY 2, a) AS x',
    'SELECT DISTINCT g, n FROM (SELECT a + 1 AS g, k, COUNT(*) AS n FROM t GROUP BY 2, a) AS x',
  ],
  [
    'postgres',
    'SELECT DISTINCT n FROM (SELECT COUNT(*) AS n FROM t) AS x',
    'SELECT n FROM (SELECT COUNT(*) AS n FROM t) AS x',
  ],
  [
    'mysql',
    'SELECT DISTINCT k FROM (SELECT k FROM t GROUP BY k) AS x1 WHERE k > 2',
    'SELECT k FROM (SELECT k FROM t GROUP BY k) AS x1 WHERE k > 2',
  ],
];

/** Each must keep its DISTINCT (refused by derived-rows-unique). */
const NOT_UNIQUE: Array<[Golden[0], string]> = [
  // A group key is not output.
  ['postgres', 'SELECT DISTINCT x.n FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) AS x'],
  ['postgres', 'SELECT DISTINCT x.a FROM (SELECT a, b FROM t GROUP BY a, b) AS x'],
  // A join can repeat the derived table's rows.
  ['mysql', 'SELECT DISTINCT x.k FROM (SELECT k FROM t GROUP BY k) AS x JOIN u ON u.k = x.k'],
  // The key is output through an expression that may merge values.
  ['postgres', 'SELECT DISTINCT UPPER(x.s) AS s FROM (SELECT s FROM t GROUP BY s) AS x'],
  ['postgres', 'SELECT DISTINCT x.k / 2 AS h FROM (SELECT k FROM t GROUP BY k) AS x'],
  // A unique key (not primary) may repeat NULL; a key of a joined table; no catalog key.
  ['postgres', 'SELECT DISTINCT kv FROM (SELECT kv FROM u) AS x'],
  ['postgres', 'SELECT DISTINCT id FROM (SELECT t.id FROM t JOIN u ON u.a = t.a) AS x'],
  ['postgres', 'SELECT DISTINCT a, c FROM (SELECT a, c FROM w) AS x'],
  // The inner primary key is grouped away or aggregated over.
  ['postgres', 'SELECT DISTINCT id FROM (SELECT MAX(id) AS id FROM t GROUP BY a) AS x'],
  // A set-returning function repeats rows.
  ['postgres', 'SELECT DISTINCT x.k, g FROM (SELECT k, GENERATE_SERIES(1, 2) AS g FROM t GROUP BY k) AS x'],
  ['postgres', 'SELECT DISTINCT x.k, UNNEST(ARRAY[1, 1]) AS g FROM (SELECT k FROM t GROUP BY k) AS x'],
  // ROLLUP adds rows with NULL keys; DISTINCT ON picks rows; a column list renames.
  ['postgres', 'SELECT DISTINCT a FROM (SELECT a FROM t GROUP BY ROLLUP (a)) AS x'],
  ['postgres', 'SELECT DISTINCT a FROM (SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b) AS x'],
  ['postgres', 'SELECT DISTINCT p FROM (SELECT a, b FROM t GROUP BY a, b) AS x(p, q)'],
  // A union is not modelled; nor a recursive CTE.
  ['postgres', 'SELECT DISTINCT a FROM (SELECT a FROM t UNION SELECT a FROM u) AS x'],
  [
    'postgres',
    'WITH RECURSIVE c AS (SELECT 1 AS a UNION ALL SELECT a + 1 FROM c WHERE a < 3) SELECT DISTINCT a FROM c',
  ],
  // The outer aggregates.
  ['snowflake', 'SELECT DISTINCT COUNT(*) AS n FROM (SELECT k FROM t GROUP BY k) AS x'],
];

describe('redundant-distinct', () => {
  it.each(OVER_UNIQUE)('over a unique derived table: %s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [redundantDistinct], catalog: GOLDEN_CATALOG }).sql).toBe(
      expected,
    );
  });
  it.each(NOT_UNIQUE)('keeps DISTINCT: %s: %s', (dialect, sql) => {
    const out = rewriteSql(sql, dialect, { rules: [redundantDistinct], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(sql);
    expect(out.refusals).toContain('redundant-distinct/derived-rows-unique');
  });
  it('needs the catalog for a primary key', () => {
    const sql = 'SELECT DISTINCT id FROM (SELECT id FROM t) AS x';
    expect(rewriteSql(sql, 'postgres', { rules: [redundantDistinct], catalog: null }).sql).toBe(sql);
    expect(rewriteSql(sql, 'postgres', { rules: [redundantDistinct], catalog: GOLDEN_CATALOG }).sql).toBe(
      'SELECT id FROM (SELECT id FROM t) AS x',
    );
  });
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    expect(rewriteSql(input, dialect, { rules: [redundantDistinct] }).sql).toBe(expected);
  });
});
