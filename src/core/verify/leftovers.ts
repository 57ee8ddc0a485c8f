import { canonicalText, tolerantEqual } from './canonical.ts';
import type { ResolvedTolerance } from './canonical.ts';
import type { JsonRow } from './types.ts';

/** Indexes of rows that remain different after exact matching, key pairing and tolerance matching. */
export interface Leftovers {
  missing: number[];
  extra: number[];
  /** [original index, rewritten index] of key-paired rows that differ. */
  changed: [number, number][];
}

export interface LeftoverInput {
  /** Original / rewritten indexes without an exact counterpart, ascending. */
  original: readonly number[];
  rewritten: readonly number[];
  /** Decodes original row i (`decode(i)`) or rewritten row i (`decode(~i)`). */
  decode: (ref: number) => JsonRow;
  key: readonly string[] | undefined;
  tolerance: ResolvedTolerance;
  /** Called every few thousand decoded rows so a large leftover set does not block the event loop. */
  pause: () => Promise<void>;
}

const PAUSE_EVERY = 5000;

/**
 * Second stage after exact multiset matching. With `key`, the i-th leftover original row with key tuple K
 * pairs with the i-th leftover rewritten row with tuple K (occurrence order); an absent key column is its own
 * value (≠ null); a pair equal within tolerance is a match, otherwise it is `changed`. Without `key` but with
 * an active tolerance, each leftover original row (ascending) takes the first not-yet-taken leftover rewritten
 * row (ascending) that is equal within tolerance (greedy, not a maximum matching). Everything else is
 * missing (original) or extra (rewritten).
 */
export async function resolveLeftovers(input: LeftoverInput): Promise<Leftovers> {
  const { original, rewritten, decode, key, tolerance, pause } = input;
  if (key === undefined && !tolerance.active)
    return { missing: [...original], extra: [...rewritten], changed: [] };
  let work = 0;
  const tick = async (): Promise<void> => {
    if (++work % PAUSE_EVERY === 0) await pause();
  };
  const label =
    key !== undefined
      ? (row: JsonRow): string =>
          JSON.stringify(key.map((k) => (Object.hasOwn(row, k) ? canonicalText(row[k]) : null)))
      : (row: JsonRow): string => canonicalText(row, true);

  const groups = new Map<string, { items: number[]; taken: boolean[]; first: number }>();
  for (const r of rewritten) {
    const l = label(decode(~r));
    const g = groups.get(l);
    if (g === undefined) groups.set(l, { items: [r], taken: [false], first: 0 });
    else {
      g.items.push(r);
      g.taken.push(false);
    }
    await tick();
  }
  const missing: number[] = [];
  const changed: [number, number][] = [];
  for (const o of original) {
    const row = decode(o);
    const g = groups.get(label(row));
    let matched = false;
    if (g !== undefined && key !== undefined) {
      if (g.first < g.items.length) {
        const r = g.items[g.first]!;
        g.taken[g.first++] = true;
        matched = true;
        if (!tolerantEqual(row, decode(~r), tolerance)) changed.push([o, r]);
      }
    } else if (g !== undefined) {
      for (let j = g.first; j < g.items.length; j++) {
        if (!g.taken[j] && tolerantEqual(row, decode(~g.items[j]!), tolerance)) {
          g.taken[j] = true;
          while (g.first < g.items.length && g.taken[g.first]) g.first++;
          matched = true;
          break;
        }
      }
    }
    if (!matched) missing.push(o);
    await tick();
  }
  const extra: number[] = [];
  for (const g of groups.values()) g.items.forEach((r, j) => g.taken[j] || extra.push(r));
  extra.sort((a, b) => a - b);
  return { missing, extra, changed };
}
