import { describe, expect, it } from 'vitest';
import type { Golden } from '../testing.ts';
import { rewriteSql } from '../testing.ts';
import { countToExists } from './count-to-exists.ts';

const SUB = '(SELECT COUNT(*) FROM u WHERE u.a = t.a)';
const EX = 'EXISTS(SELECT 1 FROM u WHERE u.a = t.a)';

const GOLDEN: Golden[] = [
  ['postgres', `SELECT id FROM t WHERE ${SUB} > 0`, `SELECT id FROM t WHERE ${EX}`],
  ['postgres', `SELECT id FROM t WHERE ${SUB} >= 1 AND t.b > 2`, `SELECT id FROM t WHERE ${EX} AND t.b > 2`],
  ['postgres', `SELECT id FROM t WHERE 0 < ${SUB}`, `SELECT id FROM t WHERE ${EX}`],
  ['postgres', `SELECT id FROM t WHERE ${SUB} = 0`, `SELECT id FROM t WHERE NOT ${EX}`],
  ['postgres', `SELECT id FROM t WHERE t.b > 2 OR ${SUB} < 1`, `SELECT id FROM t WHERE t.b > 2 OR NOT ${EX}`],
  // NOT binds more loosely than IS and =: the bracket stays.
  ['postgres', `SELECT id FROM t WHERE (${SUB} = 0) IS NULL`, `SELECT id FROM t WHERE (NOT ${EX}) IS NULL`],
  ['mysql', `SELECT id FROM t WHERE ${SUB} <> 0`, `SELECT id FROM t WHERE ${EX}`],
  [
    'mysql',
    'SELECT id FROM t WHERE (SELECT COUNT(1) FROM u WHERE u.a = t.a) <= 0',
    `SELECT id FROM t WHERE NOT ${EX}`,
  ],
  ['bigquery', `SELECT id FROM t WHERE ${SUB} > 0`, `SELECT id FROM t WHERE ${EX}`],
  [
    'postgres',
    'SELECT id FROM t WHERE (SELECT COUNT(*) AS n FROM u WHERE u.a = t.a) > 0',
    `SELECT id FROM t WHERE ${EX}`,
  ],
  ['snowflake', `SELECT id FROM t WHERE ${SUB} > 0`, `SELECT id FROM t WHERE ${EX}`],
  [
    'postgres',
    `SELECT t.a, COUNT(*) AS n FROM t GROUP BY t.a HAVING ${SUB} > 0`,
    `SELECT t.a, COUNT(*) AS n FROM t GROUP BY t.a HAVING ${EX}`,
  ],
  // Must not fire: a count is asked for, or the subquery may return no row or NULL-skipping counts.
  ['postgres', `SELECT id FROM t WHERE ${SUB} > 1`, `SELECT id FROM t WHERE ${SUB} > 1`],
  ['postgres', `SELECT id FROM t WHERE ${SUB} = 1`, `SELECT id FROM t WHERE ${SUB} = 1`],
  [
    'postgres',
    'SELECT id FROM t WHERE (SELECT COUNT(u.b) FROM u WHERE u.a = t.a) > 0',
    'SELECT id FROM t WHERE (SELECT COUNT(u.b) FROM u WHERE u.a = t.a) > 0',
  ],
  [
    'mysql',
    'SELECT id FROM t WHERE (SELECT COUNT(*) FROM u WHERE u.a = t.a GROUP BY u.b) > 0',
    'SELECT id FROM t WHERE (SELECT COUNT(*) FROM u WHERE u.a = t.a GROUP BY u.b) > 0',
  ],
  [
    'postgres',
    'SELECT id FROM t WHERE (SELECT COUNT(*) FROM u WHERE u.a = t.a HAVING COUNT(*) > 2) > 0',
    'SELECT id FROM t WHERE (SELECT COUNT(*) FROM u WHERE u.a = t.a HAVING COUNT(*) > 2) > 0',
  ],
  [
    'postgres',
    'SELECT id FROM t WHERE (SELECT COUNT(*) FROM u WHERE u.a = t.a LIMIT 0) > 0',
    'SELECT id FROM t WHERE (SELECT COUNT(*) FROM u WHERE u.a = t.a LIMIT 0) > 0',
  ],
  [
    'postgres',
    'SELECT id FROM t WHERE (SELECT COUNT(DISTINCT 1) FROM u WHERE u.a = t.a) > 0',
    'SELECT id FROM t WHERE (SELECT COUNT(DISTINCT 1) FROM u WHERE u.a = t.a) > 0',
  ],
  [
    'postgres',
    'SELECT id FROM t WHERE (SELECT MAX(u.b) FROM u WHERE u.a = t.a) > 0',
    'SELECT id FROM t WHERE (SELECT MAX(u.b) FROM u WHERE u.a = t.a) > 0',
  ],
];

describe('count-to-exists', () => {
  it.each(GOLDEN)('%s: %s', (dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { rules: [countToExists] });
    expect(out.sql).toBe(expected);
  });
});
