import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../sql/dialect.ts';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { unionToUnionAll } from './union-to-union-all.ts';

const same = (d: SqlDialect, sql: string): Golden => [d, sql, sql];

// t.id / u.id primary keys; t.s (general_ci) vs u.s (bin) vs w.s (general_ci); t.f double.
const GOLDEN: Golden[] = [
  [
    'postgres',
    "SELECT id, 'x' AS tag FROM t UNION SELECT id, 'y' FROM u",
    "SELECT id, 'x' AS tag FROM t UNION ALL SELECT id, 'y' FROM u",
  ],
  [
    'bigquery',
    'SELECT id, 1 AS tag FROM t UNION DISTINCT SELECT id, 2 FROM u UNION DISTINCT SELECT id, 3 FROM t',
    'SELECT id, 1 AS tag FROM t UNION ALL SELECT id, 2 FROM u UNION ALL SELECT id, 3 FROM t',
  ],
  [
    'postgres',
    'SELECT id, a FROM t WHERE a < 10 UNION SELECT id, a FROM t WHERE a >= 10',
    'SELECT id, a FROM t WHERE a < 10 UNION ALL SELECT id, a FROM t WHERE a >= 10',
  ],
  [
    'postgres',
    'SELECT id, a FROM t WHERE a BETWEEN 1 AND 5 UNION SELECT id, a FROM t WHERE a = 6',
    'SELECT id, a FROM t WHERE a BETWEEN 1 AND 5 UNION ALL SELECT id, a FROM t WHERE a = 6',
  ],
  [
    'mysql',
    'SELECT DISTINCT s, 1 AS k FROM t UNION SELECT DISTINCT s, 2 FROM w',
    'SELECT DISTINCT s, 1 AS k FROM t UNION ALL SELECT DISTINCT s, 2 FROM w',
  ],
  [
    'postgres',
    'SELECT k FROM v WHERE k IN (SELECT id FROM t WHERE id < 3 UNION SELECT id FROM t WHERE id > 5)',
    'SELECT k FROM v WHERE k IN (SELECT id FROM t WHERE id < 3 UNION ALL SELECT id FROM t WHERE id > 5)',
  ],
  [
    'postgres',
    "SELECT x.id FROM (SELECT id, 'a' AS g FROM t UNION SELECT id, 'b' FROM u) AS x",
    "SELECT x.id FROM (SELECT id, 'a' AS g FROM t UNION ALL SELECT id, 'b' FROM u) AS x",
  ],
  [
    'postgres',
    'SELECT id, f FROM t WHERE f < 0 UNION SELECT id, f FROM t WHERE f >= 0',
    'SELECT id, f FROM t WHERE f < 0 UNION ALL SELECT id, f FROM t WHERE f >= 0',
  ],
  // Must not fire:
  // union-to-union-all/branches-duplicate-free
  same('postgres', "SELECT a, 'x' AS tag FROM t UNION SELECT a, 'y' FROM u"),
  // union-to-union-all/branches-disjoint
  same('mysql', "SELECT id, 'x' AS tag FROM t UNION SELECT id, 'X' FROM u"),
  // union-to-union-all/branches-disjoint
  same('mysql', "SELECT id, 'x' AS tag FROM t UNION SELECT id, 'x ' FROM u"),
  // union-to-union-all/branches-disjoint
  same('snowflake', 'SELECT id, 1 AS tag FROM t UNION SELECT id, 1.0 FROM u'),
  // union-to-union-all/branches-disjoint
  same('postgres', 'SELECT id, a FROM t WHERE a < 10 UNION SELECT id, a FROM t WHERE a > 5'),
  // union-to-union-all/branch-types-equal
  same(
    'postgres',
    'SELECT DISTINCT a, b FROM t WHERE a <= 0 UNION SELECT a, COUNT(*) FROM u WHERE a > 0 GROUP BY a',
  ),
  // union-to-union-all/branches-duplicate-free
  same('postgres', 'SELECT a, b FROM t WHERE a < 10 UNION SELECT a, b FROM u WHERE a >= 10'),
  // union-to-union-all/branch-types-equal
  same('postgres', 'SELECT id, s FROM t UNION SELECT id, s FROM u'),
  // union-to-union-all/branch-types-equal
  same('mysql', 'SELECT DISTINCT s, 1 AS k FROM t UNION SELECT DISTINCT s, 2 FROM u'),
  // not a site
  same(
    'postgres',
    "SELECT id, 'x' AS tag FROM t UNION ALL SELECT id, 'y' FROM u UNION SELECT id, 'z' FROM t",
  ),
  // union-to-union-all/branches-disjoint
  same('postgres', 'SELECT id, NULL AS tag FROM t UNION SELECT id, NULL FROM u'),
  // union-to-union-all/branch-types-equal
  same('postgres', "SELECT COUNT(*) AS n, 'x' AS tag FROM t UNION SELECT COUNT(*), 'y' FROM u"),
  // union-to-union-all/branches-duplicate-free
  same('postgres', "SELECT t.id, 'x' AS tag FROM t JOIN u ON u.id = t.id UNION SELECT id, 'y' FROM u"),
  // union-to-union-all/branches-disjoint
  same('postgres', "SELECT id, 'á' AS tag FROM t UNION SELECT id, 'a' FROM u"),
  // union-to-union-all/branches-disjoint
  same('postgres', 'SELECT id, a FROM t WHERE a < 10 OR a IS NULL UNION SELECT id, a FROM t WHERE a >= 10'),
];

describe('union-to-union-all', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [unionToUnionAll], catalog: GOLDEN_CATALOG });
    expect(out.fallback, out.reason).toBe(false);
    expect(out.sql).toBe(expected);
  });
});
