import { describe, expect, it } from 'vitest';
import { normaliseType } from '../catalog.ts';
import { parseSql } from '../sql/parse.ts';
import type { Statement } from '../sql/tree.ts';
import { cteReferences } from './cte-scope.ts';
import { columnType } from './sql-type-names.ts';
import { outputTypes, sameType, setOpType, typeEnv } from './sql-types.ts';
import { GOLDEN_CATALOG } from './testing.ts';
import { bodyOf } from './tree-ops.ts';

const parse = (sql: string, d: 'postgres' | 'mysql' = 'postgres'): Statement => {
  const p = parseSql(sql, d);
  if (!p.ok || !p.statements[0]) throw new Error('parse');
  return p.statements[0];
};
const col = (rawType: string, collation?: string) => ({
  name: 'c',
  type: normaliseType(rawType),
  rawType,
  ...(collation ? { collation } : {}),
});

describe('sql types', () => {
  it('names a catalog type canonically, keeping what changes semantics', () => {
    expect(columnType(col('int(11)')).name).toBe('integer');
    expect(columnType(col('INT4')).name).toBe('integer');
    expect(columnType(col('character varying(8)')).name).toBe('varchar(8)');
    expect(columnType(col('numeric(10, 2)')).name).toBe('numeric(10,2)');
    expect(columnType(col('timestamp with time zone')).family).toBe('timestamptz');
    expect(columnType(col('char(3)')).family).toBe('char');
    expect(columnType(col('int(11) unsigned')).name).toBe('integer unsigned');
  });

  it('treats a MySQL string without a known collation as equal to nothing', () => {
    const a = columnType(col('varchar(8)'));
    const b = columnType(col('varchar(8)', 'utf8mb4_bin'));
    expect(sameType(a, a, 'postgres')).toBe(true);
    expect(sameType(a, a, 'mysql')).toBe(false);
    expect(sameType(b, b, 'mysql')).toBe(true);
    expect(sameType(b, columnType(col('varchar(8)', 'utf8mb4_general_ci')), 'mysql')).toBe(false);
  });

  it('coerces set operations only where the dialect is known to', () => {
    const int = columnType(col('integer'));
    const big = columnType(col('bigint'));
    const date = columnType(col('date'));
    const ts = columnType(col('timestamp'));
    expect(setOpType([int, big], 'postgres')?.name).toBe('bigint');
    expect(setOpType([date, ts], 'postgres')?.name).toBe('timestamp');
    expect(setOpType([int, big], 'mysql')).toBeUndefined();
    expect(setOpType([columnType(col('text')), columnType(col('char(3)'))], 'postgres')).toBeUndefined();
  });

  it('types the output columns of SELECTs and set operations from the catalog', () => {
    const stmt = parse('SELECT d AS x, 1 AS one, a + 1 AS y FROM t UNION ALL SELECT d, 2, b FROM u');
    const types = outputTypes(stmt, typeEnv(stmt, GOLDEN_CATALOG, 'postgres'));
    expect(types?.map((t) => t?.name)).toEqual(['timestamp', 'integer', undefined]);
    const star = parse('SELECT * FROM t');
    expect(outputTypes(star, typeEnv(star, GOLDEN_CATALOG, 'postgres'))).toBeUndefined();
  });

  it('resolves a CTE reference in its scope only', () => {
    const stmt = parse('SELECT * FROM (WITH t AS (SELECT 1 AS k) SELECT k FROM t) AS a, t');
    const refs = cteReferences(stmt);
    // The inner `t` is the CTE; the outer `t` is the table.
    expect(refs.size).toBe(1);
    const outer = bodyOf(stmt, 'select')?.from as { expressions: unknown[] };
    expect(refs.has(outer.expressions[1])).toBe(false);
  });
});
