/**
 * Test fixture: a model of JSON rows whose numbers are exact (coefficient × 10^exponent) and a renderer that
 * writes the same value in many equivalent texts (number spellings, string escapes, key order, whitespace).
 */
import fc from 'fast-check';

export type Model =
  null | boolean | string | { num: bigint; exp: number } | Model[] | { obj: [string, Model][] };

/** A model row: unique keys. */
export type RowModel = [string, Model][];

const COLUMNS = ['a', 'b', 'c', 'id', 'é', 'k"q', 'x y', 'z\u0000'];

export const numberModel = fc.record({
  num: fc.oneof(
    fc.bigInt(-20n, 20n),
    fc.bigInt(-(10n ** 25n), 10n ** 25n),
    fc.constantFrom(9007199254740993n, 9007199254740992n, 12345678901234567890n),
  ),
  exp: fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: -4, max: 4 }) },
    fc.integer({ min: -400, max: 400 }),
  ),
});

const stringModel = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({
    unit: fc.constantFrom(
      'a',
      'A',
      'é',
      'e\u0301',
      '"',
      '\\',
      '/',
      '\n',
      '\t',
      '😀',
      '\u0000',
      '\u2028',
      '\ud800',
      '\udc00',
    ),
    maxLength: 5,
  }),
);

export const scalarModel: fc.Arbitrary<Model> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  stringModel,
  numberModel,
);

export const valueModel: fc.Arbitrary<Model> = fc.letrec<{ v: Model }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarModel,
    fc.array(tie('v'), { maxLength: 3 }),
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...COLUMNS), tie('v')), { selector: ([k]) => k, maxLength: 3 })
      .map((obj) => ({ obj })),
  ),
})).v;

export const rowModel = (value: fc.Arbitrary<Model> = valueModel): fc.Arbitrary<RowModel> =>
  fc.uniqueArray(fc.tuple(fc.constantFrom(...COLUMNS), value), { selector: ([k]) => k, maxLength: 4 });

/** Deterministic PRNG (mulberry32) so a rendering is reproducible from its seed. */
export function prng(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function renderNumber(num: bigint, exp: number, rnd: () => number): string {
  const sign = num < 0n ? '-' : '';
  const digits = (num < 0n ? -num : num).toString();
  if (num === 0n) return ['0', '0.0', '-0', '0e5', '0.000E-3'][Math.floor(rnd() * 5)]!;
  switch (Math.floor(rnd() * 5)) {
    case 0:
      return `${sign}${digits}e${exp}`;
    case 1:
      return `${sign}${digits}0E${exp >= 1 ? '+' : ''}${exp - 1}`;
    case 2: {
      // Plain decimal notation, only for modest exponents.
      if (exp > 30 || exp < -30) return `${sign}${digits}e${exp}`;
      if (exp >= 0) return `${sign}${digits}${'0'.repeat(exp)}${rnd() < 0.5 ? '.000' : ''}`;
      const padded = digits.padStart(-exp + 1, '0');
      return `${sign}${padded.slice(0, exp)}.${padded.slice(exp)}${rnd() < 0.5 ? '00' : ''}`;
    }
    case 3: {
      const p = digits.length - 1;
      return `${sign}${digits[0]}${p > 0 ? `.${digits.slice(1)}` : ''}e${exp + p}`;
    }
    default:
      return `${sign}0.${digits}e${exp + digits.length}`;
  }
}

function renderString(s: string, rnd: () => number): string {
  if (rnd() < 0.5) return JSON.stringify(s);
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    const ch = s[i]!;
    if (u < 0x20 || ch === '"' || ch === '\\' || (u >= 0xd800 && u <= 0xdfff) || rnd() < 0.3) {
      const hex = u.toString(16).padStart(4, '0');
      out += `\\u${rnd() < 0.5 ? hex : hex.toUpperCase()}`;
    } else out += ch;
  }
  return out + '"';
}

const ws = (rnd: () => number): string =>
  rnd() < 0.8 ? '' : [' ', '\n', '\t ', '\r\n'][Math.floor(rnd() * 4)]!;

export function renderValue(v: Model, rnd: () => number): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return renderString(v, rnd);
  if (Array.isArray(v)) return `[${v.map((x) => ws(rnd) + renderValue(x, rnd) + ws(rnd)).join(',')}]`;
  if ('num' in v) return renderNumber(v.num, v.exp, rnd);
  return renderRow(v.obj, rnd);
}

/** Renders an object with shuffled member order. */
export function renderRow(row: RowModel, rnd: () => number): string {
  const members = row.map(
    ([k, x]) => `${ws(rnd)}${renderString(k, rnd)}${ws(rnd)}:${ws(rnd)}${renderValue(x, rnd)}`,
  );
  for (let i = members.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [members[i], members[j]] = [members[j]!, members[i]!];
  }
  return `{${members.join(',')}${ws(rnd)}}`;
}

export const renderRows = (rows: readonly RowModel[], seed: number): string => {
  const rnd = prng(seed);
  return `[${rows.map((r) => ws(rnd) + renderRow(r, rnd)).join(',')}]`;
};

/** A permutation of 0..n-1 from a seed. */
export function permutation(n: number, seed: number): number[] {
  const rnd = prng(seed);
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}
