import { describe, expect, it } from 'vitest';
import { parseSql } from '../sql/parse.ts';
import type { Statement } from '../sql/tree.ts';
import { constantRangesOn } from './partition-ranges.ts';

const parse = (sql: string): Statement => {
  const r = parseSql(sql, 'postgres');
  if (!r.ok || !r.statements[0]) throw new Error('parse');
  return r.statements[0];
};
const ranges = (sql: string) => constantRangesOn(parse(sql), 'orders', 'o_orderdate');

describe('constantRangesOn', () => {
  it('reads a half-open range from top-level conjuncts', () => {
    expect(
      ranges(
        "SELECT 1 FROM orders WHERE o_orderdate >= '1995-01-01' AND o_orderdate < '1995-04-01' AND o_totalprice > 1",
      ),
    ).toEqual([{ from: '1995-01-01', to: '1995-04-01', fromInclusive: true, toInclusive: false }]);
  });
  it('reads BETWEEN, equality and a qualified column', () => {
    expect(
      ranges("SELECT 1 FROM orders AS o WHERE o.o_orderdate BETWEEN '1995-01-01' AND '1995-01-31'"),
    ).toEqual([{ from: '1995-01-01', to: '1995-01-31', fromInclusive: true, toInclusive: true }]);
    expect(ranges("SELECT 1 FROM orders WHERE '1995-01-01' = o_orderdate")).toEqual([
      { from: '1995-01-01', to: '1995-01-01', fromInclusive: true, toInclusive: true },
    ]);
  });
  it('is undefined when a scan is unrestricted, ORed, on a function, or outer-joined', () => {
    expect(ranges('SELECT 1 FROM orders')).toBeUndefined();
    expect(
      ranges("SELECT 1 FROM orders WHERE o_orderdate >= '1995-01-01' OR o_totalprice > 1"),
    ).toBeUndefined();
    expect(ranges('SELECT 1 FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) = 1995')).toBeUndefined();
    expect(
      ranges(
        "SELECT 1 FROM customer LEFT JOIN orders ON o_custkey = c_custkey WHERE o_orderdate >= '1995-01-01'",
      ),
    ).toBeUndefined();
    expect(
      ranges("SELECT 1 FROM orders WHERE o_orderdate > '1995-01-01' UNION ALL SELECT 1 FROM orders"),
    ).toBeUndefined();
  });
  it('gives one range per scan', () => {
    expect(
      ranges(
        "SELECT 1 FROM orders WHERE o_orderdate > '1995-01-01' UNION ALL SELECT 1 FROM orders WHERE o_orderdate < '1993-01-01'",
      ),
    ).toHaveLength(2);
  });
});
