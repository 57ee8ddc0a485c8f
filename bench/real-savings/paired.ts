/**
 * The regression verdict of bench/real-savings, made from paired runs rather than from two medians.
 *
 * Each round runs a query's original and rewritten form back to back (the order alternating), so both meet
 * the same load; the round's ratio `after / before` cancels what the machine was doing at that moment. The
 * verdict is on the median of those ratios, with a distribution-free confidence interval from the sign test
 * (the order statistics of the ratios: no assumption about the shape of the timing noise). A query is a
 * regression only when the whole interval lies above 1 + `slower` (slower by more than 10 % with 95 %
 * confidence) and its median time grew by more than `floorMs` (below which the clock and scheduling decide).
 * A query whose median ratio is above the line but whose interval is not is reported as not shown, never
 * dropped silently.
 */

export type Verdict = {
  readonly pairs: number;
  /** Median of the per-round ratios after / before. */
  readonly ratio: number;
  /** The sign test's interval for that median (NaN bounds when there are too few pairs for the level). */
  readonly low: number;
  readonly high: number;
  /** Median wall times of each form, ms. */
  readonly before: number;
  readonly after: number;
  /** `regression`: slower with confidence; `not-shown`: slower in the median only; `ok` otherwise. */
  readonly kind: 'regression' | 'not-shown' | 'ok';
};

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0
    ? NaN
    : s.length % 2
      ? (s[m] as number)
      : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** P(X ≤ k) for X ~ Binomial(n, 1/2). */
const binomialCdfHalf = (n: number, k: number): number => {
  let term = 0.5 ** n; // C(n, 0) / 2^n
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
};

/**
 * The 1-based rank k of the sign test's interval [x(k), x(n+1-k)] for the median at `level` (two-sided): the
 * largest k with 2·P(Bin(n, ½) ≤ k − 1) ≤ 1 − level. Undefined when even [x(1), x(n)] is not enough (n < 6 at
 * 95 %).
 */
export const signTestRank = (n: number, level = 0.95): number | undefined => {
  let k: number | undefined;
  for (let j = 1; j <= Math.floor((n + 1) / 2); j++) {
    if (2 * binomialCdfHalf(n, j - 1) <= 1 - level) k = j;
    else break;
  }
  return k;
};

export const SLOWER = 0.1;
export const FLOOR_MS = 0.2;

/** The verdict on paired times (index i of both arrays is one round). */
export const pairedVerdict = (
  before: readonly number[],
  after: readonly number[],
  opts: { slower?: number; floorMs?: number; level?: number } = {},
): Verdict => {
  const slower = opts.slower ?? SLOWER;
  const floorMs = opts.floorMs ?? FLOOR_MS;
  const n = Math.min(before.length, after.length);
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) ratios.push((after[i] as number) / Math.max(before[i] as number, 1e-6));
  ratios.sort((a, b) => a - b);
  const k = signTestRank(n, opts.level ?? 0.95);
  const low = k === undefined ? NaN : (ratios[k - 1] as number);
  const high = k === undefined ? NaN : (ratios[n - k] as number);
  const ratio = median(ratios);
  const [b, a] = [median(before.slice(0, n)), median(after.slice(0, n))];
  const grew = a - b > floorMs;
  const kind = grew && low > 1 + slower ? 'regression' : grew && ratio > 1 + slower ? 'not-shown' : 'ok';
  return { pairs: n, ratio, low, high, before: b, after: a, kind };
};

/** `+32 % [+14, +51]` */
export const fmtVerdict = (v: Verdict): string => {
  const p = (r: number): string =>
    Number.isFinite(r) ? `${r >= 1 ? '+' : ''}${Math.round((r - 1) * 100)}` : '?';
  return `${p(v.ratio)} % [${p(v.low)}, ${p(v.high)}]`;
};
