import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIB, TIB } from './bigquery-bytes.ts';
import { bigQueryDryRunCost } from './bigquery-dry-run.ts';

/** The bill BigQuery would send, knowing each table's bytes (what a dry run does not say). */
const trueBill = (perTable: number[]): number =>
  Math.max(
    10 * MIB,
    perTable.reduce((a, b) => a + Math.max(10 * MIB, Math.ceil(b / MIB) * MIB), 0),
  );

describe('bigQueryDryRunCost', () => {
  it('prices one table exactly: rounded up to the MiB, 10 MiB minimum', () => {
    const big = bigQueryDryRunCost({ bytesProcessed: 25 * MIB + 1, referencedTables: 1 }, 6.25);
    expect(big).toMatchObject({
      method: 'dry_run',
      bytes: 25 * MIB + 1,
      bytesBilled: 26 * MIB,
      accuracy: 'exact',
    });
    expect(big.usd).toBeCloseTo(((26 * MIB) / TIB) * 6.25, 9);
    expect(bigQueryDryRunCost({ bytesProcessed: 0, referencedTables: 1 }, 6.25).bytesBilled).toBe(10 * MIB);
    expect(bigQueryDryRunCost({ bytesProcessed: 0, referencedTables: 0 }, 6.25).bytesBilled).toBe(10 * MIB);
  });
  it('bounds the bill of several tables: the lower bound priced, the upper one shown, the truth between', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 40 * MIB }), { minLength: 2, maxLength: 6 }), (perTable) => {
        const total = perTable.reduce((a, b) => a + b, 0);
        const est = bigQueryDryRunCost({ bytesProcessed: total, referencedTables: perTable.length }, 6.25);
        expect(est.accuracy).toBe('lower_bound');
        expect(est.bytesBilled).toBeLessThanOrEqual(trueBill(perTable));
        expect(Number(est.assumptions.bytes_billed_max)).toBeGreaterThanOrEqual(trueBill(perTable));
      }),
    );
  });
  it('never prices NaN or a negative amount', () => {
    expect(bigQueryDryRunCost({ bytesProcessed: -5, referencedTables: -1 }, 6.25).usd).toBeGreaterThan(0);
    expect(bigQueryDryRunCost({ bytesProcessed: 10, referencedTables: 1 }, 0).usd).toBe(0);
  });
});
