import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import { RULES } from '../../src/core/rewrite/rules/index.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../../src/core/rewrite/testing.ts';

/**
 * Every rule declares its proof obligations, the README explains each, and each obligation is really
 * checked: for every one there is a query the rule leaves alone because exactly that obligation could not
 * be shown (the engine reports it through `onRefusal`).
 */
const REFUSED: ReadonlyArray<[rule: string, obligation: string, dialect: SqlDialect, sql: string]> = [
  ['simplify-booleans', 'exact-constant-comparison', 'mysql', "SELECT a FROM t WHERE 'a' = 'A'"],
  ['date-text-prefix', 'date-column', 'mysql', "SELECT id FROM t WHERE CAST(ts AS CHAR) LIKE '1995-%'"],
  ['date-text-prefix', 'prefix-is-a-range', 'mysql', "SELECT id FROM t WHERE CAST(d AS CHAR) LIKE '1995-1%'"],
  [
    'self-join-elimination',
    'joined-on-primary-key',
    'postgres',
    'SELECT a.a, b.b FROM t AS a JOIN t AS b ON a.a = b.a',
  ],
  [
    'self-join-elimination',
    'kept-row-preserved',
    'postgres',
    'SELECT a.a FROM u AS x LEFT JOIN t AS a ON a.id = x.id JOIN t AS b ON a.id = b.id',
  ],
  [
    'self-join-elimination',
    'references-renamable',
    'postgres',
    'SELECT a.a, b.* FROM t AS a JOIN t AS b ON a.id = b.id',
  ],
  [
    'correlated-aggregate-to-join',
    'single-aggregate-output',
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k = o.k GROUP BY u.b) AS n FROM t AS o',
  ],
  [
    'correlated-aggregate-to-join',
    'correlated-by-key-equality',
    'postgres',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.k > o.k) AS n FROM t AS o',
  ],
  [
    'correlated-aggregate-to-join',
    'join-keys-compare-alike',
    'mysql',
    'SELECT o.a, (SELECT COUNT(*) FROM u WHERE u.s = o.s) AS n FROM t AS o',
  ],
  [
    'correlated-aggregate-to-join',
    'outer-rows-kept',
    'postgres',
    'SELECT * FROM t AS o WHERE o.v > (SELECT COUNT(*) FROM u WHERE u.k = o.k)',
  ],
  [
    'or-to-in',
    'deterministic-operand',
    'postgres',
    'SELECT id FROM t WHERE a + RANDOM() = 1 OR a + RANDOM() = 2',
  ],
  ['or-to-in', 'constants-of-operand-type', 'mysql', "SELECT id FROM t WHERE a = 1 OR a = '2'"],
  [
    'union-to-union-all',
    'branches-duplicate-free',
    'postgres',
    "SELECT a, 'x' AS tag FROM t UNION SELECT a, 'y' FROM u",
  ],
  [
    'union-to-union-all',
    'branch-types-equal',
    'mysql',
    'SELECT DISTINCT s, 1 AS k FROM t UNION SELECT DISTINCT s, 2 FROM u',
  ],
  [
    'union-to-union-all',
    'branches-disjoint',
    'mysql',
    "SELECT id, 'x' AS tag FROM t UNION SELECT id, 'X' FROM u",
  ],
  ['dedupe-in-list', 'deterministic-item', 'postgres', 'SELECT a FROM t WHERE a IN (RANDOM(), RANDOM())'],
  [
    'count-to-exists',
    'count-returns-one-row',
    'postgres',
    'SELECT id FROM t WHERE (SELECT COUNT(*) FROM u WHERE u.a = t.a GROUP BY u.b) > 0',
  ],
  [
    'count-to-exists',
    'compares-with-zero',
    'postgres',
    'SELECT id FROM t WHERE (SELECT COUNT(*) FROM u WHERE u.a = t.a) > 1',
  ],
  [
    'subquery-order-by',
    'order-chooses-no-rows',
    'postgres',
    'SELECT COUNT(*) AS n FROM (SELECT a FROM t ORDER BY a LIMIT 3) AS d',
  ],
  ['subquery-order-by', 'order-not-observed', 'postgres', 'SELECT a FROM (SELECT a FROM t ORDER BY a) AS d'],
  ['unused-ctes', 'name-never-read', 'postgres', 'WITH c AS (SELECT 1 AS x) SELECT x FROM c'],
  [
    'redundant-distinct',
    'rows-already-unique',
    'postgres',
    'SELECT DISTINCT COUNT(*) AS n FROM t GROUP BY a',
  ],
  [
    'redundant-distinct',
    'derived-rows-unique',
    'postgres',
    'SELECT DISTINCT x.n FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) AS x',
  ],
  [
    'redundant-distinct',
    'membership-only',
    'postgres',
    'SELECT a FROM t WHERE a IN (SELECT DISTINCT b FROM u LIMIT 2)',
  ],
  ['sargable-dates', 'date-or-timestamp-column', 'mysql', 'SELECT a FROM t WHERE YEAR(s) = 1995'],
  [
    'sargable-dates',
    'exact-preimage',
    'postgres',
    "SELECT a FROM t WHERE d + INTERVAL '1 day 12 hours' = DATE '2024-01-02'",
  ],
  [
    'predicate-pushdown',
    'preserved-side',
    'postgres',
    'SELECT u.k FROM u LEFT JOIN (SELECT k FROM t) AS d ON d.k = u.k WHERE d.k = 1',
  ],
  [
    'predicate-pushdown',
    'filter-commutes',
    'postgres',
    'SELECT k FROM (SELECT k FROM t ORDER BY k LIMIT 5) AS d WHERE d.k = 1',
  ],
  [
    'predicate-pushdown',
    'window-partition-keys',
    'postgres',
    'SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) AS x WHERE v = 5',
  ],
  [
    'cte-predicate-pushdown',
    'window-partition-keys',
    'postgres',
    'WITH c AS (SELECT k, SUM(v) OVER () AS s FROM t) SELECT k FROM c WHERE k = 1',
  ],
  [
    'union-predicate-pushdown',
    'window-partition-keys',
    'postgres',
    'SELECT * FROM (SELECT k, SUM(v) OVER (PARTITION BY a) AS s FROM t UNION ALL SELECT k, y FROM u) AS x WHERE k = 1',
  ],
  [
    'predicate-pushdown',
    'grouping-equality',
    'mysql',
    "SELECT s FROM (SELECT DISTINCT s FROM t) AS d WHERE BINARY d.s = 'f'",
  ],
  [
    'predicate-pushdown',
    'having-reads-group-keys',
    'postgres',
    'SELECT a, COUNT(*) AS n FROM t GROUP BY a HAVING COUNT(*) > 2',
  ],
  [
    'predicate-pushdown',
    'having-grouping-equality',
    'mysql',
    "SELECT s, COUNT(*) AS n FROM t GROUP BY s HAVING BINARY s = 'f'",
  ],
  [
    'outer-join-simplification',
    'joined-item-named-once',
    'postgres',
    'SELECT 1 FROM t LEFT JOIN u ON u.id = t.a LEFT JOIN w AS u ON u.a = t.a WHERE u.a = 1',
  ],
  [
    'outer-join-simplification',
    'where-rejects-nulls',
    'postgres',
    'SELECT t.a FROM t LEFT JOIN u ON u.id = t.a WHERE u.a NOT IN (SELECT w.a FROM w)',
  ],
  [
    'derived-join-to-semi-join',
    'joined-item-named-once',
    'mysql',
    'SELECT t.a FROM t JOIN (SELECT DISTINCT b FROM u) AS d ON d.b = t.a JOIN w AS d ON d.a = t.a',
  ],
  [
    'derived-join-to-semi-join',
    'one-equated-column',
    'mysql',
    'SELECT t.a FROM t JOIN (SELECT DISTINCT b, k FROM u) AS d ON d.b = t.a',
  ],
  [
    'derived-join-to-semi-join',
    'unique-match',
    'mysql',
    'SELECT t.a FROM t JOIN (SELECT b FROM u) AS d ON d.b = t.a',
  ],
  [
    'derived-join-to-semi-join',
    'no-reference',
    'mysql',
    'SELECT t.a, d.b FROM t JOIN (SELECT DISTINCT b FROM u) AS d ON d.b = t.a',
  ],
  [
    'derived-join-to-semi-join',
    'filter-commutes',
    'mysql',
    'SELECT t.a FROM t JOIN (SELECT DISTINCT b FROM u) AS d ON d.b = t.a RIGHT JOIN w ON w.a = t.a',
  ],
  [
    'join-elimination',
    'joined-item-named-once',
    'postgres',
    'SELECT x FROM nation AS n LEFT JOIN region AS r(r_regionkey, x) ON r.r_regionkey = n.n_regionkey',
  ],
  [
    'join-elimination',
    'unique-match',
    'postgres',
    'SELECT c.c_name FROM customer AS c LEFT JOIN orders AS o ON o.o_custkey = c.c_custkey',
  ],
  [
    'join-elimination',
    'no-reference',
    'postgres',
    'SELECT COUNT(*) AS c FROM nation AS n LEFT JOIN region AS r ON r.r_regionkey = n.n_regionkey NATURAL JOIN region AS r2',
  ],
  [
    'cte-predicate-pushdown',
    'preserved-side',
    'postgres',
    'WITH c AS (SELECT k FROM t) SELECT u.a FROM u LEFT JOIN c ON c.k = u.a WHERE c.k = 1',
  ],
  [
    'cte-predicate-pushdown',
    'filter-commutes',
    'postgres',
    'WITH c AS (SELECT k FROM t ORDER BY k LIMIT 3) SELECT k FROM c WHERE k = 1',
  ],
  [
    'cte-predicate-pushdown',
    'branch-types-equal',
    'postgres',
    "WITH q AS (SELECT d AS x FROM t UNION ALL SELECT d FROM u) SELECT x FROM q WHERE x < '2024-01-01 12:00'",
  ],
  [
    'cte-predicate-pushdown',
    'grouping-equality',
    'mysql',
    "WITH q AS (SELECT DISTINCT s FROM t) SELECT s FROM q WHERE BINARY s = 'f'",
  ],
  [
    'union-predicate-pushdown',
    'preserved-side',
    'postgres',
    'SELECT w.a FROM w LEFT JOIN (SELECT a AS k FROM t UNION ALL SELECT b FROM u) AS d ON d.k = w.a WHERE d.k = 1',
  ],
  [
    'union-predicate-pushdown',
    'filter-commutes',
    'postgres',
    'SELECT k FROM (SELECT a AS k FROM t UNION SELECT b FROM u) AS d WHERE d.k = 1',
  ],
  [
    'union-predicate-pushdown',
    'branch-types-equal',
    'postgres',
    "SELECT x FROM (SELECT c AS x FROM t UNION ALL SELECT c FROM u) AS q WHERE q.x = 'a '",
  ],
  [
    'union-predicate-pushdown',
    'grouping-equality',
    'mysql',
    "SELECT x FROM (SELECT s AS x FROM t GROUP BY s UNION ALL SELECT s FROM w) AS q WHERE BINARY q.x = 'f'",
  ],
  [
    'derived-table-merge',
    'plain-inner',
    'postgres',
    'SELECT a FROM (SELECT DISTINCT a FROM t) AS x WHERE a = 1',
  ],
  [
    'derived-table-merge',
    'names-resolve',
    'postgres',
    'SELECT a, y FROM (SELECT a FROM t) AS x JOIN u ON u.id = x.a',
  ],
  [
    'derived-table-merge',
    'row-preserved',
    'postgres',
    'SELECT u.y, x.a FROM u LEFT JOIN (SELECT a, b FROM t WHERE b > 1) AS x ON x.a = u.a',
  ],
  [
    'derived-table-merge',
    'computed-once',
    'postgres',
    'SELECT c FROM (SELECT a / b AS c FROM t) AS x WHERE c > 1',
  ],
  ['unused-columns', 'column-unread', 'postgres', 'SELECT * FROM (SELECT a, b FROM t) AS d'],
  ['unused-columns', 'row-count-kept', 'postgres', 'SELECT d.a FROM (SELECT DISTINCT a, b FROM t) AS d'],
  [
    'unused-columns',
    'name-not-read-inside',
    'postgres',
    'SELECT d.a FROM (SELECT a, b + 1 AS c FROM t ORDER BY c) AS d',
  ],
];

const README = readFileSync(new URL('../../src/core/rewrite/README.md', import.meta.url), 'utf8');

describe('proof obligations', () => {
  it('every rule declares obligations with unique kebab-case ids, each explained in the README', () => {
    for (const rule of RULES) {
      expect(rule.obligations.length, rule.name).toBeGreaterThan(0);
      const ids = rule.obligations.map((o) => o.id);
      expect(new Set(ids).size, rule.name).toBe(ids.length);
      const section = README.split(/^### /m).find((s) => s.startsWith(`\`${rule.name}\``));
      expect(section, `README has a section for ${rule.name}`).toBeDefined();
      for (const o of rule.obligations) {
        expect(o.id).toMatch(/^[a-z]+(-[a-z]+)*$/);
        expect(section, `${rule.name}: README explains ${o.id}`).toContain(`\`${o.id}\``);
      }
    }
  });

  it('has a refusal case for every declared obligation', () => {
    const covered = new Set(REFUSED.map(([r, o]) => `${r}/${o}`));
    const declared = RULES.flatMap((r) => r.obligations.map((o) => `${r.name}/${o.id}`));
    expect(declared.filter((d) => !covered.has(d))).toEqual([]);
  });

  it.each(REFUSED)('%s refuses on %s: %s', (ruleName, obligation, dialect, sql) => {
    const rule = RULES.find((r) => r.name === ruleName);
    if (!rule) throw new Error(ruleName);
    const out = rewriteSql(sql, dialect, { rules: [rule], catalog: GOLDEN_CATALOG });
    expect(out.fallback, out.reason).toBe(false);
    expect(out.refusals).toContain(`${ruleName}/${obligation}`);
    expect(out.rulesApplied).toEqual([]);
  });
});
