/** A small seeded PRNG (mulberry32): the same seed gives the same queries and data on every machine. */
export type Rng = {
  /** A float in [0, 1). */
  readonly next: () => number;
  /** An integer in [lo, hi]. */
  readonly int: (lo: number, hi: number) => number;
  readonly chance: (p: number) => boolean;
  readonly pick: <T>(xs: readonly T[]) => T;
  /** Picks by weight: `[[weight, value], …]`. */
  readonly weighted: <T>(xs: ReadonlyArray<readonly [number, T]>) => T;
  /** A new generator seeded from this one (independent streams for data and queries). */
  readonly fork: () => Rng;
};

export const rng = (seed: number): Rng => {
  let a = seed >>> 0 || 0x9e3779b9;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const self: Rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (xs) => {
      if (xs.length === 0) throw new Error('pick from an empty list');
      return xs[Math.floor(next() * xs.length)] as (typeof xs)[number];
    },
    weighted: (xs) => {
      const total = xs.reduce((s, [w]) => s + w, 0);
      let r = next() * total;
      for (const [w, v] of xs) {
        r -= w;
        if (r < 0) return v;
      }
      return (xs.at(-1) as (typeof xs)[number])[1];
    },
    fork: () => rng(Math.floor(next() * 2 ** 32)),
  };
  return self;
};
