import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../sql/dialect.ts';
import type { Golden } from '../testing.ts';
import { GOLDEN_CATALOG, rewriteSql } from '../testing.ts';
import { orToIn } from './or-to-in.ts';

const same = (d: SqlDialect, sql: string): Golden => [d, sql, sql];

// t.a integer, t.n bare NUMERIC, t.f double, t.s VARCHAR (MySQL general_ci), t.c CHAR(4), t.d DATE.
const GOLDEN: Golden[] = [
  ['postgres', 'SELECT id FROM t WHERE a = 1 OR a = 2 OR a = 3', 'SELECT id FROM t WHERE a IN (1, 2, 3)'],
  [
    'mysql',
    "SELECT id FROM t WHERE (s = 'x' OR s = 'Y') AND b > 0",
    "SELECT id FROM t WHERE s IN ('x', 'Y') AND b > 0",
  ],
  [
    'bigquery',
    'SELECT id FROM t WHERE a = 1 OR b = 2 OR a = 3',
    'SELECT id FROM t WHERE a IN (1, 3) OR b = 2',
  ],
  [
    'snowflake',
    'SELECT id FROM t WHERE 1 = a OR a IN (2, 3) OR a = NULL',
    'SELECT id FROM t WHERE a IN (1, 2, 3, NULL)',
  ],
  [
    'postgres',
    'SELECT id FROM t WHERE (a = 1 AND b = 2) OR a = 3 OR a = -4',
    'SELECT id FROM t WHERE (a = 1 AND b = 2) OR a IN (3, -4)',
  ],
  ['postgres', 'SELECT id FROM t WHERE t.n = 1.5 OR t.n = 2', 'SELECT id FROM t WHERE t.n IN (1.5, 2)'],
  [
    'postgres',
    'SELECT id FROM t JOIN u ON u.id = t.id AND (u.a = 1 OR u.a = 2)',
    'SELECT id FROM t JOIN u ON u.id = t.id AND u.a IN (1, 2)',
  ],
  [
    'postgres',
    'SELECT a, COUNT(*) AS c FROM t GROUP BY a HAVING a = 1 OR a = 2',
    'SELECT a, COUNT(*) AS c FROM t GROUP BY a HAVING a IN (1, 2)',
  ],
  [
    'postgres',
    'SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = 1 OR u.a = 2)',
    'SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a IN (1, 2))',
  ],
  ['postgres', 'SELECT id FROM t WHERE f = 0.5 OR f = 1', 'SELECT id FROM t WHERE f IN (0.5, 1)'],
  ['mysql', "SELECT id FROM t WHERE c = 'ab' OR c = 'cd '", "SELECT id FROM t WHERE c IN ('ab', 'cd ')"],
  ['postgres', 'SELECT id FROM t WHERE a = 1 OR a = 1', 'SELECT id FROM t WHERE a IN (1, 1)'],
  // Must not fire:
  // or-to-in/constants-of-operand-type
  same('postgres', 'SELECT id FROM t WHERE a = 1 OR a = 2.5'),
  // or-to-in/constants-of-operand-type
  same('mysql', "SELECT id FROM t WHERE a = 1 OR a = '2'"),
  // or-to-in/constants-of-operand-type
  same('mysql', "SELECT id FROM t WHERE s = 'a' OR s = 1"),
  // or-to-in/constants-of-operand-type
  same('postgres', "SELECT id FROM t WHERE d = '2024-01-01' OR d = '2024-01-02'"),
  // or-to-in/deterministic-operand
  same('postgres', 'SELECT id FROM t WHERE a + RANDOM() = 1 OR a + RANDOM() = 2'),
  // not a site
  same('postgres', 'SELECT id FROM t WHERE a = 1 OR b = 2'),
  // or-to-in/constants-of-operand-type
  same('postgres', 'SELECT id FROM t WHERE a = NULL OR a = NULL'),
  // or-to-in/constants-of-operand-type
  same('postgres', 'SELECT id FROM t WHERE zz = 1 OR zz = 2'),
  // not a site
  same('postgres', 'SELECT id FROM t WHERE a = 1 OR a NOT IN (2, 3)'),
  // not a site
  same('postgres', 'SELECT id FROM t WHERE a = 1 OR a IN (SELECT k FROM v)'),
  // not a site
  same('postgres', 'SELECT id FROM t WHERE a = b OR a = 2'),
];

describe('or-to-in', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [orToIn], catalog: GOLDEN_CATALOG });
    expect(out.fallback, out.reason).toBe(false);
    expect(out.sql).toBe(expected);
  });
});
