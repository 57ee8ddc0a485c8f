import { describe, expect, it } from 'vitest';
import { DEFAULT_AURORA_PRICES, auroraExplainCost } from './aurora-explain.ts';

describe('auroraExplainCost', () => {
  it('prices pages as I/O requests and rows as ACU time', () => {
    const cost = auroraExplainCost({ rowsScanned: 1_000_000, rowsReturned: 0, pages: 10_000 });
    // 10_000 I/O × $0.20 / 1e6 = $0.002; 1 ACU-second × $0.12 / 3600 = $0.0000333…
    expect(cost.usd).toBeCloseTo(0.002 + 0.12 / 3600, 12);
    expect(cost.assumptions).toMatchObject({
      io_requests: 10_000,
      acu_seconds: 1,
      usd_per_million_io_requests: 0.2,
    });
  });

  it('is zero for an empty plan and never NaN for a bad one', () => {
    expect(auroraExplainCost({ rowsScanned: 0, rowsReturned: 0, pages: 0 }).usd).toBe(0);
    expect(auroraExplainCost({ rowsScanned: NaN, rowsReturned: -5, pages: Infinity }).usd).toBe(0);
  });

  it('bills only cache misses and follows the prices passed in', () => {
    const plan = { rowsScanned: 0, rowsReturned: 0, pages: 1_000_000 };
    expect(auroraExplainCost(plan).usd).toBeCloseTo(0.2, 12);
    expect(auroraExplainCost(plan, { ...DEFAULT_AURORA_PRICES, cacheHitRatio: 0.75 }).usd).toBeCloseTo(
      0.05,
      12,
    );
    expect(
      auroraExplainCost(plan, { ...DEFAULT_AURORA_PRICES, usdPerMillionIoRequests: 0.4 }).usd,
    ).toBeCloseTo(0.4, 12);
  });

  it('grows with the rows a plan touches (a cheaper plan costs less)', () => {
    const full = auroraExplainCost({ rowsScanned: 6_000_000, rowsReturned: 4, pages: 100_000 });
    const pruned = auroraExplainCost({ rowsScanned: 50_000, rowsReturned: 4, pages: 800 });
    expect(pruned.usd).toBeLessThan(full.usd);
  });
});
