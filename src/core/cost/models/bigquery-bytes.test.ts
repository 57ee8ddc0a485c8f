import { describe, expect, it } from 'vitest';
import { catalogOf } from '../../catalog.ts';
import { parseSql } from '../../sql/parse.ts';
import { bigQueryByteModel, MIB, TIB } from './bigquery-bytes.ts';

const catalog = catalogOf([
  {
    name: 'events',
    columns: [
      { name: 'id', type: 'int64' },
      { name: 'payload', type: 'string' },
      { name: 'day', type: 'date' },
    ],
    partitioning: { column: 'day', granularity: 'month' },
    stats: {
      rows: 3,
      columnBytes: { id: 30 * MIB, payload: 300 * MIB + 1, day: 30 * MIB },
      partitions: [
        { key: '2024-01', rows: 1, columnBytes: { id: 10 * MIB, payload: 100 * MIB, day: 10 * MIB } },
        { key: '2024-02', rows: 2, columnBytes: { id: 20 * MIB, payload: 200 * MIB + 1, day: 20 * MIB } },
      ],
    },
  },
]);
const stmt = (sql: string) => {
  const r = parseSql(sql, 'bigquery');
  if (!r.ok) throw new Error(r.failure.message);
  return r.statements[0]!;
};

describe('bigQueryByteModel', () => {
  it('prices billed bytes at the configured USD per TiB, rounding up to the MiB', () => {
    const est = bigQueryByteModel({ usdPerTib: 12.5 }).estimate(stmt('SELECT payload FROM events'), catalog);
    expect(est.bytes).toBe(300 * MIB + 1);
    expect(est.assumptions.bytes_billed).toBe(301 * MIB);
    expect(est.usd).toBeCloseTo(((301 * MIB) / TIB) * 12.5, 9);
  });
  it('bills at least 10 MiB per query and per table', () => {
    const est = bigQueryByteModel({ usdPerTib: 6.25 }).estimate(stmt('SELECT 1'), catalog);
    expect(est.assumptions.bytes_billed).toBe(10 * MIB);
    const unknown = bigQueryByteModel({ usdPerTib: 6.25 }).estimate(
      stmt('SELECT a FROM x JOIN y ON true'),
      catalog,
    );
    expect(unknown.assumptions.bytes_billed).toBe(20 * MIB);
  });
  it('bills only the partitions the selector keeps', () => {
    const model = bigQueryByteModel({ usdPerTib: 6.25, partitions: () => new Set(['2024-01']) });
    const est = model.estimate(stmt("SELECT payload FROM events WHERE day >= '2024-01-01'"), catalog);
    expect(est.bytes).toBe(110 * MIB);
  });
});
