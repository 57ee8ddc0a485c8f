import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalNumberText } from './canonical.ts';
import { prng, renderValue, valueModel } from './json-model.fixture.ts';
import { referenceNumberKey } from './reference.ts';
import { NEED_MORE, scanValue } from './scanner.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Canonical hash of a JSON text (a trailing space lets a top-level number end). */
function hash(text: string): string {
  const bytes = enc(`${text} `);
  const out = new Int32Array(3);
  const end = scanValue(bytes, 0, bytes.length, 256, out);
  expect(end).toBe(bytes.length - 1);
  return `${out[0]}:${out[1]}`;
}

describe('canonical hash', () => {
  it.each([
    ['1', '1.0'],
    ['1', '1e0'],
    ['1', '10e-1'],
    ['1', '0.1E+1'],
    ['100', '1e2'],
    ['0.05', '5e-2'],
    ['0', '-0'],
    ['0', '0.000e99'],
    ['123456789012345678901234567890', '1.2345678901234567890123456789e29'],
    ['1e99999999999999999999', '10e99999999999999999998'],
    ['"A"', '"\\u0041"'],
    ['"\\n\\/"', '"\\u000a/"'],
    ['"😀"', '"\\ud83d\\ude00"'],
    ['{"a":1,"b":[1,{"c":2,"d":3}]}', '{ "b" : [1.0, {"d":3,"c":2}], "a":1 }'],
    ['{"é":true}', '{"\\u00e9":true}'],
  ])('%s ≡ %s', (a, b) => {
    expect(hash(a)).toBe(hash(b));
  });

  it('separates values that differ', () => {
    const values = [
      '1',
      '-1',
      '10',
      '0.1',
      '2',
      '9007199254740992',
      '9007199254740993',
      '1e400',
      '1e-400',
      '1e99999999999999999999',
      '"1"',
      'true',
      'false',
      'null',
      '""',
      '"\\u0000"',
      '"a"',
      '"ab"',
      '"\\ud800"',
      '[]',
      '{}',
      '[[]]',
      '[1,2]',
      '[2,1]',
      '[[1],2]',
      '[1,[2]]',
      '{"a":1}',
      '{"a":null}',
      '{"b":1}',
      '{"a":1,"b":2}',
      '{"a":2,"b":1}',
      '{"a":{"b":1}}',
      '{"a":[1]}',
      '[{"a":1}]',
    ];
    const hashes = values.map(hash);
    expect(new Set(hashes).size).toBe(values.length);
  });

  it('agrees with the canonical text: equal text ⇔ equal hash (random spellings)', () => {
    fc.assert(
      fc.property(valueModel, fc.integer(), fc.integer(), (v, s1, s2) => {
        expect(hash(renderValue(v, prng(s1)))).toBe(hash(renderValue(v, prng(s2))));
      }),
      { numRuns: 300 },
    );
  });

  it('asks for more bytes on every proper prefix, never throwing', () => {
    const text = '{"a":[1.5e3,"x\\u00e9\\ud83d\\ude00",true,null,{"b":false}],"c":-0.0}';
    const bytes = enc(text);
    const out = new Int32Array(3);
    for (let n = 1; n < bytes.length; n++) expect(scanValue(bytes, 0, n, 256, out)).toBe(NEED_MORE);
    expect(scanValue(bytes, 0, bytes.length, 256, out)).toBe(bytes.length);
  });

  it('flags numbers a double cannot hold', () => {
    const flags = (t: string): number => {
      const out = new Int32Array(3);
      scanValue(enc(`[${t}]`), 0, t.length + 2, 256, out);
      return out[2]!;
    };
    expect(flags('123456789012345')).toBe(0);
    expect(flags('1.5e10')).toBe(0);
    expect(flags('1234567890123456')).not.toBe(0);
    expect(flags('1e300')).not.toBe(0);
  });
});

describe('canonicalNumberText', () => {
  it('matches the BigInt reference on random spellings', () => {
    const text = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^(0|[1-9]\d{0,20})$/),
        fc.stringMatching(/^\d{0,6}$/),
        fc.integer({ min: -50, max: 50 }),
      )
      .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac === '' ? '' : `.${frac}`}e${exp}`);
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(canonicalNumberText(a) === canonicalNumberText(b)).toBe(
          referenceNumberKey(a) === referenceNumberKey(b),
        );
      }),
      { numRuns: 500 },
    );
    expect(canonicalNumberText('1.50e2')).toBe(canonicalNumberText('150'));
    expect(canonicalNumberText('1e21')).toBe(canonicalNumberText(String(1e21)));
  });
});
