import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { derivedTableMerge } from './derived-table-merge.ts';

const GOLDEN: Golden[] = [
  [
    'postgres',
    'SELECT x.b FROM t AS y JOIN (SELECT a AS c, b FROM t) AS x ON x.c = y.a',
    'SELECT x.b FROM t AS y JOIN t AS x ON x.a = y.a',
  ],
  [
    'mysql',
    'SELECT y.b FROM t AS y LEFT JOIN (SELECT a AS c FROM u) AS x ON x.c = y.a WHERE x.c IS NULL',
    'SELECT y.b FROM t AS y LEFT JOIN u AS x ON x.a = y.a WHERE x.a IS NULL',
  ],
  [
    'postgres',
    'SELECT x.c FROM (SELECT a + 1 AS c, b FROM t WHERE b > 0) AS x WHERE x.b < 5',
    'SELECT (x.a + 1) AS c FROM t AS x WHERE x.b > 0 AND x.b < 5',
  ],
  [
    'postgres',
    'SELECT c, COUNT(*) AS n FROM (SELECT a + 1 AS c FROM t) AS x GROUP BY c ORDER BY c',
    'SELECT (x.a + 1) c, COUNT(*) AS n FROM t AS x GROUP BY (x.a + 1) ORDER BY (x.a + 1)',
  ],
  [
    'mysql',
    'SELECT x.a, u.y FROM (SELECT a, b AS bb FROM t WHERE k = 1) AS x JOIN u ON u.a = x.a WHERE x.bb > 2',
    'SELECT x.a, u.y FROM t AS x JOIN u ON u.a = x.a WHERE x.k = 1 AND x.b > 2',
  ],
  [
    'bigquery',
    'SELECT u.y, x.a FROM u LEFT JOIN (SELECT a, b FROM t) AS x ON x.a = u.a',
    'SELECT u.y, x.a FROM u LEFT JOIN t AS x ON x.a = u.a',
  ],
  [
    'snowflake',
    "SELECT d, v FROM (SELECT d, v FROM t WHERE v IS NOT NULL) AS q WHERE d >= DATE '2024-01-01'",
    "SELECT q.d AS d, q.v AS v FROM t AS q WHERE q.v IS NOT NULL AND q.d >= DATE '2024-01-01'",
  ],
  [
    'postgres',
    'SELECT c, c + 1 AS e FROM (SELECT a * 2 AS c FROM t) AS x',
    'SELECT (x.a * 2) c, (x.a * 2) + 1 AS e FROM t AS x',
  ],
  [
    'mysql',
    "SELECT x.id FROM (SELECT id, s FROM t) AS x WHERE x.s = 'f' ORDER BY x.id LIMIT 3",
    "SELECT x.id FROM t AS x WHERE x.s = 'f' ORDER BY x.id LIMIT 3",
  ],
];

/** Each must stay, refused by the named obligation. */
const REFUSED: Array<[Golden[0], string, string]> = [
  // The inner query is more than a projection of a filter of one table.
  ['postgres', 'SELECT a FROM (SELECT DISTINCT a FROM t) AS x WHERE a = 1', 'plain-inner'],
  [
    'postgres',
    'SELECT a, n FROM (SELECT a, COUNT(*) AS n FROM t GROUP BY a) AS x WHERE a = 1',
    'plain-inner',
  ],
  ['postgres', 'SELECT n FROM (SELECT COUNT(*) AS n FROM t) AS x', 'plain-inner'],
  [
    'postgres',
    'SELECT a FROM (SELECT a, ROW_NUMBER() OVER (ORDER BY a) AS r FROM t) AS x WHERE r = 1',
    'plain-inner',
  ],
  ['postgres', 'SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3) AS x', 'plain-inner'],
  ['postgres', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS x', 'plain-inner'],
  ['postgres', 'SELECT a FROM (SELECT a FROM t UNION ALL SELECT a FROM u) AS x', 'plain-inner'],
  ['postgres', 'SELECT a FROM (SELECT t.a FROM t JOIN u ON u.id = t.id) AS x', 'plain-inner'],
  ['postgres', 'SELECT c FROM (SELECT RANDOM() AS c FROM t) AS x', 'plain-inner'],
  ['postgres', 'SELECT g FROM (SELECT GENERATE_SERIES(1, a) AS g FROM t) AS x', 'plain-inner'],
  ['postgres', 'SELECT a FROM (SELECT a FROM t WHERE a IN (SELECT a FROM u)) AS x', 'plain-inner'],
  ['postgres', 'SELECT p FROM (SELECT a, b FROM t) AS x(p, q)', 'plain-inner'],
  ['postgres', 'SELECT a FROM (SELECT * FROM t) AS x', 'plain-inner'],
  ['postgres', 'SELECT a FROM (SELECT a FROM t TABLESAMPLE BERNOULLI (10)) AS x', 'plain-inner'],
  ['mysql', 'SELECT a FROM (SELECT a, @r := @r + 1 AS r FROM t) AS x', 'plain-inner'],
  [
    'snowflake',
    'SELECT a FROM (SELECT a FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) = 1) AS x',
    'plain-inner',
  ],
  ['bigquery', 'SELECT a FROM (SELECT a, a + 1 AS a FROM t) AS x', 'plain-inner'],
  // Names the merge could capture or cannot resolve.
  [
    'postgres',
    'SELECT a FROM (SELECT a FROM t) AS x WHERE a IN (SELECT a FROM u WHERE u.b = x.a)',
    'names-resolve',
  ],
  ['postgres', 'SELECT a, y FROM (SELECT a FROM t) AS x JOIN u ON u.id = x.a', 'names-resolve'],
  [
    'postgres',
    'SELECT x.a, u.y FROM (SELECT a FROM t) AS x JOIN u ON u.id = x.a WHERE b = 1',
    'names-resolve',
  ],
  [
    'postgres',
    'SELECT c, COUNT(*) AS n FROM (SELECT a + 1 AS c FROM t) AS x GROUP BY c ORDER BY n',
    'names-resolve',
  ],
  ['postgres', 'SELECT b AS a FROM (SELECT a, b FROM t) AS x ORDER BY a', 'names-resolve'],
  ['postgres', 'SELECT x.a FROM (SELECT a FROM t) AS x JOIN u USING (a)', 'names-resolve'],
  ['postgres', 'SELECT q FROM (SELECT q FROM z) AS x', 'names-resolve'],
  [
    'postgres',
    'SELECT x.a FROM (SELECT a FROM t) AS x WHERE EXISTS (SELECT 1 FROM u AS x WHERE x.a = 1)',
    'names-resolve',
  ],
  // The null-supplying side of an outer join, with a filter or a computed output.
  [
    'postgres',
    'SELECT u.y, x.a FROM u LEFT JOIN (SELECT a, b FROM t WHERE b > 1) AS x ON x.a = u.a',
    'row-preserved',
  ],
  [
    'mysql',
    'SELECT u.y, x.c FROM u LEFT JOIN (SELECT a, COALESCE(b, 0) AS c FROM t) AS x ON x.a = u.a',
    'row-preserved',
  ],
  ['postgres', 'SELECT u.y, x.a FROM (SELECT a FROM t) AS x FULL JOIN u ON u.a = x.a', 'row-preserved'],
  ['postgres', 'SELECT u.y, x.a FROM (SELECT a FROM t) AS x RIGHT JOIN u ON u.a = x.a', 'row-preserved'],
  // An expensive output read twice would be computed twice.
  ['postgres', "SELECT c, c || 'x' AS e FROM (SELECT UPPER(c) AS c FROM t) AS x", 'computed-once'],
  ['postgres', 'SELECT c FROM (SELECT a / b AS c FROM t) AS x WHERE c > 1', 'computed-once'],
  ['postgres', 'SELECT c, COUNT(*) AS n FROM (SELECT 1 AS c, a FROM t) AS x GROUP BY c', 'computed-once'],
  [
    'postgres',
    "SELECT STRING_AGG(x.c, ',' ORDER BY x.c) AS s FROM (SELECT 'a' AS c FROM t) AS x",
    'computed-once',
  ],
];

describe('derived-table-merge', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [derivedTableMerge], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
  it.each(REFUSED)('leaves alone: %s: %s (%s)', (dialect, sql, obligation) => {
    const out = rewriteSql(sql, dialect, { rules: [derivedTableMerge], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(sql);
    expect(out.refusals).toContain(`derived-table-merge/${obligation}`);
  });
  it('needs the catalog', () => {
    const sql = 'SELECT x.a FROM (SELECT a FROM t WHERE b > 0) AS x';
    expect(rewriteSql(sql, 'postgres', { rules: [derivedTableMerge], catalog: null }).sql).toBe(sql);
  });
  it('merges nested derived tables one level per round', () => {
    const sql =
      'SELECT y.c FROM (SELECT x.a AS c FROM (SELECT a FROM t WHERE b > 0) AS x) AS y WHERE y.c < 9';
    expect(rewriteSql(sql, 'postgres', { rules: [derivedTableMerge], catalog: GOLDEN_CATALOG }).sql).toBe(
      'SELECT y.a AS c FROM t AS y WHERE y.b > 0 AND y.a < 9',
    );
  });
});

/** A CTE the statement reads once, as a FROM or joined item of the SELECT whose WITH defines it. */
const CTE_GOLDEN: Golden[] = [
  [
    'bigquery',
    'WITH c AS (SELECT a, b FROM t WHERE b > 0) SELECT c.a FROM c WHERE c.a < 9',
    'SELECT c.a FROM t AS c WHERE c.b > 0 AND c.a < 9',
  ],
  [
    'postgres',
    'WITH c AS (SELECT a, b FROM t WHERE b > 0) SELECT x.b, u.y FROM u JOIN c AS x ON x.a = u.a',
    'SELECT x.b, u.y FROM u JOIN t AS x ON x.a = u.a WHERE x.b > 0',
  ],
  [
    'mysql',
    'WITH c AS (SELECT a FROM t), d AS (SELECT a FROM u) SELECT c.a FROM c JOIN d ON d.a = c.a',
    // Both read once: merged one per round.
    'SELECT c.a FROM t c JOIN u d ON d.a = c.a',
  ],
  [
    'snowflake',
    'WITH c AS (SELECT a, b FROM t) SELECT c.b FROM c WHERE c.a = 1',
    'SELECT c.b FROM t c WHERE c.a = 1',
  ],
];

/** CTEs that stay: read twice, MATERIALIZED, RECURSIVE, with a column list, or read from another CTE. */
const CTE_KEPT: Array<[Golden[0], string]> = [
  ['postgres', 'WITH c AS (SELECT a FROM t) SELECT x.a FROM c AS x JOIN c AS y ON y.a = x.a'],
  ['postgres', 'WITH c AS MATERIALIZED (SELECT a FROM t) SELECT c.a FROM c'],
  ['postgres', 'WITH RECURSIVE c AS (SELECT a FROM t) SELECT c.a FROM c'],
  ['postgres', 'WITH c (z) AS (SELECT a FROM t) SELECT c.z FROM c'],
  ['postgres', 'WITH c AS (SELECT a FROM t), d AS (SELECT a FROM c) SELECT d.a FROM d, u'],
  ['postgres', 'WITH c AS (SELECT a FROM t) SELECT u.y FROM u WHERE u.a IN (SELECT c.a FROM c)'],
  ['postgres', 'WITH c AS (SELECT DISTINCT a FROM t) SELECT c.a FROM c'],
];

describe('derived-table-merge of a CTE read once', () => {
  it.each(CTE_GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [derivedTableMerge], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(expected);
  });
  it.each(CTE_KEPT)('leaves alone: %s: %s', (dialect, sql) => {
    const out = rewriteSql(sql, dialect, { rules: [derivedTableMerge], catalog: GOLDEN_CATALOG });
    expect(out.sql).toBe(sql);
  });
});
