import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactDecimal, exactInteger, isoTimestamp, pgByteaBase64 } from './result-values.ts';

/** The oracle: a JSON value is exact when reading it back (as a decimal string) gives the same decimal value. */
const decimalValue = (v: string | number | boolean | null): string => {
  const t = typeof v === 'number' ? String(v) : String(v);
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(t);
  if (!m) throw new Error(`not a plain decimal: ${t}`);
  const int = (m[2] ?? '').replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const s = `${m[1]}${int}${frac ? `.${frac}` : ''}`;
  return s === '-0' ? '0' : s;
};

describe('exact result values', () => {
  it('integers: numbers within ±2^53, strings beyond, never a changed value', () => {
    expect(exactInteger(2n ** 53n - 1n)).toBe(9007199254740991);
    expect(exactInteger(2n ** 53n)).toBe('9007199254740992');
    expect(exactInteger(-(2n ** 63n))).toBe('-9223372036854775808');
    expect(exactInteger('9223372036854775807')).toBe('9223372036854775807');
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (b) => {
        const v = exactInteger(b);
        expect(BigInt(String(JSON.parse(JSON.stringify(v))))).toBe(b);
        expect(typeof v === 'number').toBe(b > -(2n ** 53n) && b < 2n ** 53n);
      }),
    );
  });

  it('decimals: a JSON number only when its text is the exact value', () => {
    expect(exactDecimal('0.10')).toBe(0.1);
    expect(exactDecimal('-0.000')).toBe(0);
    expect(exactDecimal('12345678901234567.5')).toBe('12345678901234567.5');
    expect(exactDecimal('0.1000000000000000055511151231257827')).toBe('0.1000000000000000055511151231257827');
    expect(exactDecimal('99999999999999999999999999999.999999999')).toBe(
      '99999999999999999999999999999.999999999',
    );
    expect(exactDecimal('NaN')).toBe('NaN');
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 38n), max: 10n ** 38n }),
        fc.integer({ min: 0, max: 9 }),
        (unscaled, scale) => {
          const neg = unscaled < 0n;
          const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
          const text = `${neg ? '-' : ''}${digits.slice(0, digits.length - scale)}${scale ? `.${digits.slice(-scale)}` : ''}`;
          const v = exactDecimal(text);
          const back = JSON.parse(JSON.stringify(v)) as string | number;
          expect(decimalValue(back)).toBe(decimalValue(text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('timestamps as ISO 8601 and bytea as base64', () => {
    expect(isoTimestamp('2024-01-02 03:04:05')).toBe('2024-01-02T03:04:05');
    expect(isoTimestamp('2024-01-02 03:04:05.123456+00')).toBe('2024-01-02T03:04:05.123456Z');
    expect(isoTimestamp('2024-01-02 03:04:05+05:30')).toBe('2024-01-02T03:04:05+05:30');
    expect(isoTimestamp('2024-01-02 03:04:05-08')).toBe('2024-01-02T03:04:05-08:00');
    expect(isoTimestamp('infinity')).toBe('infinity');
    expect(pgByteaBase64('\\x48656c6c6f')).toBe('SGVsbG8=');
  });
});
