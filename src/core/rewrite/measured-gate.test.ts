import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../sql/dialect.ts';
import { parseSql } from '../sql/parse.ts';
import type { Statement } from '../sql/tree.ts';
import { rewriteStatement } from './engine.ts';
import { MEASURED_REGRESSIONS, addedRangeDays } from './measured-gate.ts';
import { GOLDEN_CATALOG } from './testing.ts';

const parse = (sql: string, d: SqlDialect): Statement => {
  const r = parseSql(sql, d);
  if (!r.ok || !r.statements[0]) throw new Error('parse');
  return r.statements[0];
};
const rewrite = (sql: string, dialect: SqlDialect, measured = MEASURED_REGRESSIONS) =>
  rewriteStatement(parse(sql, dialect), sql, {
    dialect,
    catalog: GOLDEN_CATALOG,
    disabled: new Set(),
    budgetMs: 1000,
    now: () => 0,
    measured,
  });

const WIDE: ReadonlyArray<readonly [SqlDialect, string]> = [
  ['postgres', 'SELECT id FROM t WHERE EXTRACT(YEAR FROM d) BETWEEN 1994 AND 1995'],
  ['postgres', 'SELECT id FROM t WHERE EXTRACT(YEAR FROM d) IN (1993, 1997)'],
  ['mysql', 'SELECT id FROM t WHERE YEAR(d) BETWEEN 1994 AND 1995'],
];

describe('the measured gate', () => {
  it.each(WIDE)('%s: leaves a range over more than a year alone: %s', (dialect, sql) => {
    expect(rewrite(sql, dialect).rulesApplied).not.toContain('sargable-dates');
    // Without the table, and on a warehouse where it was not measured slower, the rule applies.
    expect(rewrite(sql, dialect, []).rulesApplied).toContain('sargable-dates');
    expect(rewrite(sql, 'bigquery').rulesApplied).toContain('sargable-dates');
  });
  it.each([
    ['postgres', 'SELECT id FROM t WHERE EXTRACT(YEAR FROM d) = 1995'],
    ['mysql', 'SELECT id FROM t WHERE YEAR(d) = 1996'],
    ['mysql', "SELECT id FROM t WHERE DATE(ts) = '1996-02-29'"],
  ] as const)('%s: keeps a range of a year or less: %s', (dialect, sql) => {
    expect(rewrite(sql, dialect).rulesApplied).toContain('sargable-dates');
  });
  it('measures the days the change adds', () => {
    const before = parse("SELECT id FROM t WHERE d >= '1995-01-01' AND d < '1996-01-01'", 'postgres');
    const after = parse(
      "SELECT id FROM t WHERE d >= '1995-01-01' AND d < '1996-01-01' AND (ts >= '1996-01-01' AND ts < '1996-03-01')",
      'postgres',
    );
    expect(addedRangeDays(before, after)).toBe(60);
    expect(addedRangeDays(after, after)).toBe(0);
  });
});
