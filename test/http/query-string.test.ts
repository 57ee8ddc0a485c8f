import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQueryString } from '../../src/http/query-string.ts';

const fastQuerystring = createRequire(import.meta.url)('fast-querystring') as {
  parse(s: string): Record<string, string | string[]>;
};
/** What Fastify's router gives by default (find-my-way: `{}` for an empty string). */
const oracle = (s: string) => (s.length === 0 ? {} : fastQuerystring.parse(s));

/** Pieces that make query strings hard: separators, escapes (valid, truncated, invalid UTF-8), `+`, non-ASCII. */
const PIECES = [
  'a',
  'b',
  'query',
  'warehouse',
  '__proto__',
  'constructor',
  '=',
  '&',
  '+',
  '%',
  '%2',
  '%20',
  '%2B',
  '%26',
  '%3D',
  '%25',
  '%zz',
  '%C3%A9',
  '%C3',
  '%C3%28',
  '%E0%A4%A',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%00',
  '%0A',
  'é',
  '😀',
  ' ',
  'SELECT',
  '%27',
  "'",
  '*',
  ';',
  '#',
  '?',
  '%E2%80%A8',
];

describe('parseQueryString (GET query strings, decoded by the engine)', () => {
  it('gives what fast-querystring gives, on generated strings', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), (parts) => {
        const s = parts.join('');
        const got = parseQueryString(s);
        expect(got).toEqual(oracle(s));
        // No inherited names either way (`toString` is not a parameter unless sent).
        for (const name of ['toString', 'constructor', 'hasOwnProperty'])
          expect(name in got, name).toBe(name in oracle(s));
      }),
      { numRuns: 5_000 },
    );
  });

  it('gives what fast-querystring gives on arbitrary text, encoded or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.boolean(), (text, encode) => {
        const s = encode ? `query=${encodeURIComponent(text)}&warehouse=aurora` : text;
        expect(parseQueryString(s)).toEqual(oracle(s));
      }),
      { numRuns: 5_000 },
    );
  });

  it('decodes a whole SQL text as sent', () => {
    const sql =
      "SELECT l_returnflag, sum(l_quantity) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' -- é 😀 +";
    expect(parseQueryString(`query=${encodeURIComponent(sql)}`)).toEqual({ query: sql });
  });
});
