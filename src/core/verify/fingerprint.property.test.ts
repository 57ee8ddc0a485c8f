import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalText } from './canonical.ts';
import { canonicalRowText, createFingerprinter, sameFingerprint } from './fingerprint.ts';
import type { Fingerprint } from './fingerprint.ts';
import { permutation, prng, renderValue, valueModel } from './json-model.fixture.ts';
import type { Model } from './json-model.fixture.ts';
import { rawJsonText } from './raw-json.ts';
import { parseExact, referenceNumberKey } from './reference.ts';

const KEY = new Uint8Array(32).fill(7);

/** A row of the model as the adapters hand it over: decoded values, numbers spelled one of many ways. */
const decode = (row: readonly Model[], rnd: () => number): unknown[] =>
  row.map((v) => parseExact(renderValue(v, rnd)));

const fingerprint = (rows: readonly (readonly unknown[])[], columns = ['a']): Fingerprint => {
  const fp = createFingerprinter(KEY);
  fp.columns(columns);
  for (const r of rows) fp.add(r);
  return fp.result();
};

/** The reference: a row's text with object keys sorted and numbers by the reference's exact value. */
const referenceKey = (row: unknown): string =>
  JSON.stringify(row, (_k, v: unknown) => {
    const raw = rawJsonText(v);
    if (raw !== undefined) return `#${referenceNumberKey(raw)}`;
    if (typeof v === 'number') return `#${referenceNumberKey(String(v))}`;
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v;
  });
const multiset = (rows: readonly unknown[]): string => rows.map(referenceKey).sort().join('\n');

const rowsModel = fc.array(fc.array(valueModel, { minLength: 1, maxLength: 3 }), { maxLength: 12 });

/** B from A: the same rows reordered, or with one row dropped, duplicated or replaced, or unrelated rows. */
const pairModel = fc
  .tuple(rowsModel, fc.nat(), fc.constantFrom('same', 'drop', 'dup', 'replace', 'other'), rowsModel)
  .map(([a, seed, how, other]) => {
    const p = permutation(a.length, seed).map((i) => a[i]!);
    const i = a.length > 0 ? seed % a.length : 0;
    const b =
      how === 'same' || a.length === 0
        ? p
        : how === 'drop'
          ? p.filter((_, j) => j !== i)
          : how === 'dup'
            ? [...p, p[i]!]
            : how === 'replace'
              ? [...p.filter((_, j) => j !== i), ...other.slice(0, 1)]
              : other;
    return { a, b, seed };
  });

describe('the multiset fingerprint', () => {
  it('ignores row order and number spelling', () => {
    fc.assert(
      fc.property(rowsModel, fc.nat(), fc.nat(), (rows, s1, s2) => {
        const r1 = prng(s1);
        const r2 = prng(s2);
        const a = rows.map((r) => decode(r, r1));
        const b = permutation(rows.length, s2).map((i) => decode(rows[i]!, r2));
        expect(fingerprint(a)).toEqual(fingerprint(b));
      }),
      { numRuns: 300 },
    );
  });

  it('is equal exactly when the canonical multisets are equal', () => {
    let equalSeen = 0;
    let differentSeen = 0;
    fc.assert(
      fc.property(pairModel, ({ a, b, seed }) => {
        const rnd = prng(seed);
        const da = a.map((r) => decode(r, rnd));
        const db = b.map((r) => decode(r, rnd));
        const expected = multiset(da) === multiset(db);
        if (expected) equalSeen++;
        else differentSeen++;
        expect(sameFingerprint(fingerprint(da), fingerprint(db))).toBe(expected);
      }),
      { numRuns: 500 },
    );
    // Both sides of the equivalence were exercised.
    expect(equalSeen).toBeGreaterThan(50);
    expect(differentSeen).toBeGreaterThan(50);
  });

  it('reduces a row to exactly the canonical text of POST /verify', () => {
    fc.assert(
      fc.property(rowsModel, fc.nat(), (rows, seed) => {
        const rnd = prng(seed);
        for (const r of rows) {
          const row = decode(r, rnd);
          expect(canonicalRowText(row)).toBe(canonicalText(row));
        }
      }),
      { numRuns: 300 },
    );
    for (const n of [0, -0, 1, -1, 10, 150, -1200, 9007199254740991, 1.5, 1e21, 1e-7])
      expect(canonicalRowText([n])).toBe(canonicalText([n]));
  });

  it('tells a row twice from the row once (a xor would not) and sees column names and order', () => {
    const x = [1, 'x'];
    expect(sameFingerprint(fingerprint([x, x]), fingerprint([]))).toBe(false);
    expect(sameFingerprint(fingerprint([x, x, x]), fingerprint([x]))).toBe(false);
    expect(sameFingerprint(fingerprint([x], ['a', 'b']), fingerprint([x], ['b', 'a']))).toBe(false);
    expect(sameFingerprint(fingerprint([[null]]), fingerprint([['null']]))).toBe(false);
    expect(sameFingerprint(fingerprint([[1]]), fingerprint([['1']]))).toBe(false);
    expect(sameFingerprint(fingerprint([[1]]), fingerprint([[true]]))).toBe(false);
    expect(sameFingerprint(fingerprint([[1n]]), fingerprint([[1]]))).toBe(true);
    expect(sameFingerprint(fingerprint([[NaN]]), fingerprint([['NaN']]))).toBe(false);
  });
});
