import { describe, expect, it } from 'vitest';
import type { SqlDialect } from './dialect.ts';
import { tokenizeSql } from './parse.ts';
import { measureQuery } from './query-size.ts';

const measure = (sql: string, dialect: SqlDialect = 'postgres') => {
  const tokens = tokenizeSql(sql, dialect);
  if (!tokens) throw new Error(`not tokenized: ${sql}`);
  return measureQuery(tokens);
};
const list = (n: number, f: (i: number) => string, sep: string): string =>
  Array.from({ length: n }, (_, i) => f(i)).join(sep);

describe('measureQuery', () => {
  const SHAPES: Record<string, (n: number) => string> = {
    'IN list': (n) => `SELECT 1 FROM t WHERE a IN (${list(n, String, ', ')})`,
    'OR chain': (n) => `SELECT 1 FROM t WHERE ${list(n, (i) => `a = ${i}`, ' OR ')}`,
    'AND chain in parentheses': (n) =>
      `SELECT 1 FROM t WHERE b = 1 AND (${list(n, (i) => `a <> ${i}`, ' AND ')})`,
    'CASE WHEN': (n) => `SELECT CASE ${list(n, (i) => `WHEN a = ${i} THEN ${i}`, ' ')} END FROM t`,
    'select list': (n) => `SELECT ${list(n, (i) => `a${i}`, ', ')} FROM t`,
    UNION: (n) => list(n, (i) => `SELECT ${i}`, ' UNION ALL '),
    'VALUES rows': (n) => `SELECT * FROM (VALUES ${list(n, (i) => `(${i})`, ', ')}) v(a)`,
    'ARRAY literal': (n) => `SELECT ARRAY[${list(n, String, ', ')}]`,
  };
  const dialects: SqlDialect[] = ['postgres', 'mysql', 'bigquery', 'snowflake', 'duckdb'];
  it.each(Object.entries(SHAPES).flatMap(([name, f]) => dialects.map((d) => [name, d, f] as const)))(
    '%s (%s): the longest run is the number of items',
    (name, dialect, f) => {
      if (name === 'ARRAY literal' && (dialect === 'mysql' || dialect === 'snowflake')) return;
      for (const n of [7, 300]) expect(measure(f(n), dialect).longestList, `${n}`).toBe(n);
    },
  );

  it('does not count commas or keywords inside strings, quoted names or comments', () => {
    const sql = `SELECT 'a, b, c OR d', "x,y" FROM t -- , , , OR OR\n WHERE a = 1 /* , , AND */`;
    expect(measure(sql).longestList).toBe(2);
  });

  it('says where the longest list starts', () => {
    const m = measure(`SELECT 1\nFROM t\nWHERE a IN (${list(20, String, ', ')})`);
    expect(m.longestAt).toEqual({ line: 3, column: expect.any(Number) as number });
  });

  it('counts tokens and copes with unbalanced parentheses', () => {
    expect(measure('SELECT a, b FROM t').tokens).toBe(6);
    expect(measure('SELECT ((1, 2, 3').longestList).toBe(3);
    expect(measure('SELECT 1))) , 2').longestList).toBe(2);
    expect(measure('').longestList).toBe(0);
  });
});
