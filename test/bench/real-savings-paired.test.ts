import { describe, expect, it } from 'vitest';
import { pairedVerdict, signTestRank } from '../../bench/real-savings/paired.ts';

/** A deterministic pseudo-random stream (the verdicts must not depend on the run). */
const lcg = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

describe('bench/real-savings: the paired regression verdict', () => {
  it('uses the sign test ranks of the binomial table', () => {
    expect(signTestRank(5)).toBeUndefined(); // 2 · (1/32) > 0.05: no 95 % interval from 5 pairs
    expect(signTestRank(6)).toBe(1);
    expect(signTestRank(11)).toBe(2);
    expect(signTestRank(20)).toBe(6);
    expect(signTestRank(61)).toBe(23);
  });
  it('flags a form consistently slower by 30 %, under noise that moves single runs by ±50 %', () => {
    const rnd = lcg(7);
    const before: number[] = [];
    const after: number[] = [];
    for (let i = 0; i < 21; i++) {
      const load = 1 + rnd(); // the machine's state in this round, shared by the pair
      before.push(10 * load * (0.95 + 0.1 * rnd()));
      after.push(13 * load * (0.95 + 0.1 * rnd()));
    }
    const v = pairedVerdict(before, after);
    expect(v.kind).toBe('regression');
    expect(v.low).toBeGreaterThan(1.1);
  });
  it('does not flag noise, even when one median happens to be higher', () => {
    const rnd = lcg(11);
    for (let trial = 0; trial < 50; trial++) {
      const before: number[] = [];
      const after: number[] = [];
      for (let i = 0; i < 11; i++) {
        before.push(5 * (0.5 + 2 * rnd()));
        after.push(5 * (0.5 + 2 * rnd()));
      }
      expect(pairedVerdict(before, after).kind).not.toBe('regression');
    }
  });
  it('keeps the absolute floor: 0.05 → 0.1 ms every time is below 0.2 ms of difference', () => {
    const v = pairedVerdict(Array(11).fill(0.05), Array(11).fill(0.1));
    expect(v.ratio).toBeCloseTo(2);
    expect(v.kind).toBe('ok');
  });
  it('reports a slower median without confidence as not shown, and too few pairs never as a regression', () => {
    expect(pairedVerdict([10, 10, 10, 10, 10], [20, 20, 20, 20, 20]).kind).toBe('not-shown');
    const before = [10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10];
    const after = [20, 20, 20, 20, 20, 20, 5, 5, 5, 5, 5];
    expect(pairedVerdict(before, after).kind).toBe('not-shown');
  });
});
