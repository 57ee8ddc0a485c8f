import { describe, expect, it } from 'vitest';
import { catalogOf } from '../../catalog.ts';
import type { TableInfo } from '../../catalog.ts';
import { parseSql } from '../../sql/parse.ts';
import { bigQueryByteModel, MIB } from './bigquery-bytes.ts';
import { partitionsByConstantRanges } from './partition-selector.ts';

const months = ['1995-01', '1995-02', '1995-03', '1995-04'];
const orders: TableInfo = {
  name: 'orders',
  columns: [
    { name: 'o_orderkey', type: 'int64' },
    { name: 'o_orderdate', type: 'date' },
  ],
  partitioning: { column: 'o_orderdate', granularity: 'month' },
  stats: {
    rows: 4,
    columnBytes: { o_orderkey: 40 * MIB, o_orderdate: 40 * MIB },
    partitions: months.map((key) => ({
      key,
      rows: 1,
      columnBytes: { o_orderkey: 10 * MIB, o_orderdate: 10 * MIB },
    })),
  },
};
const catalog = catalogOf([orders]);
const keys = (sql: string) => {
  const r = parseSql(sql, 'postgres');
  if (!r.ok) throw new Error(r.failure.message);
  const set = partitionsByConstantRanges(r.statements[0]!, orders);
  return set === undefined ? undefined : [...set].sort();
};

describe('partitionsByConstantRanges', () => {
  it('keeps the months a closed-open range covers', () => {
    expect(
      keys("SELECT 1 FROM orders WHERE o_orderdate >= DATE '1995-02-01' AND o_orderdate < DATE '1995-03-01'"),
    ).toEqual(['1995-02']);
  });
  it('keeps a month touched by one day at either end', () => {
    expect(
      keys("SELECT 1 FROM orders WHERE o_orderdate BETWEEN DATE '1995-01-31' AND DATE '1995-03-01'"),
    ).toEqual(months.slice(0, 3));
  });
  it('bills every partition when the predicate is on a function of the column', () => {
    expect(keys('SELECT 1 FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) = 1995')).toBeUndefined();
  });
  it('makes the byte model bill only the selected partitions', () => {
    const model = bigQueryByteModel({ usdPerTib: 6.25, partitions: partitionsByConstantRanges });
    const r = parseSql("SELECT o_orderkey FROM orders WHERE o_orderdate >= DATE '1995-04-01'", 'postgres');
    if (!r.ok) throw new Error('parse');
    expect(model.estimate(r.statements[0]!, catalog).bytes).toBe(20 * MIB);
  });
});
