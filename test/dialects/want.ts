/**
 * Expected values of the fidelity corpus, written from each warehouse's documentation, and the comparison of
 * an engine's result against them. A value carries its type class, so a DATE that comes back as a TIMESTAMP, or
 * an integer quotient that comes back as a fraction, is a difference, not a match.
 *
 * Shorthand in the corpus: a JS number is any numeric type, a string is a string type, `null` is NULL, a
 * boolean a BOOLEAN, an array a list, an object a struct. The helpers below pin a type class.
 */
export type Want =
  | { t: 'int'; v: number }
  | { t: 'frac'; v: number }
  | { t: 'num'; v: number }
  | { t: 'approx'; v: number; rel: number }
  | { t: 'str'; v: string }
  | { t: 'date'; v: string }
  | { t: 'ts'; v: string }
  | { t: 'tstz'; v: string }
  | { t: 'time'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'null' }
  | { t: 'json'; v: unknown }
  | { t: 'list'; v: Want[] }
  | { t: 'struct'; v: Record<string, Want> };

export type Shorthand = Want | number | string | boolean | null | Shorthand[] | { [k: string]: Shorthand };

/** An integer type (INT64, INTEGER, BIGINT, …). */
export const int = (v: number): Want => ({ t: 'int', v });
/** A fractional type: FLOAT64, NUMERIC, DECIMAL, DOUBLE. */
export const frac = (v: number): Want => ({ t: 'frac', v });
/** Within a relative error (approximate aggregates, within their documented error). */
export const approx = (v: number, rel: number): Want => ({ t: 'approx', v, rel });
export const date = (v: string): Want => ({ t: 'date', v });
/** A timestamp without time zone (BigQuery DATETIME, Snowflake TIMESTAMP_NTZ, PostgreSQL timestamp). */
export const ts = (v: string): Want => ({ t: 'ts', v });
/** An absolute point in time (BigQuery TIMESTAMP, timestamptz), written in UTC: '2024-01-01 10:00:00+00'. */
export const tstz = (v: string): Want => ({ t: 'tstz', v });
export const time = (v: string): Want => ({ t: 'time', v });
/** A JSON value (JSON type or JSON text), compared as parsed JSON. */
export const json = (v: unknown): Want => ({ t: 'json', v });

const isWant = (x: object): x is Want => 't' in x && typeof x.t === 'string';

export const want = (s: Shorthand): Want => {
  if (s === null) return { t: 'null' };
  if (typeof s === 'number') return { t: 'num', v: s };
  if (typeof s === 'string') return { t: 'str', v: s };
  if (typeof s === 'boolean') return { t: 'bool', v: s };
  if (Array.isArray(s)) return { t: 'list', v: s.map(want) };
  if (isWant(s)) return s;
  return { t: 'struct', v: Object.fromEntries(Object.entries(s).map(([k, x]) => [k, want(x)])) };
};

/** A value read back from an engine, with the type class of its column (or element). */
export type Got =
  | { c: 'int' | 'frac'; v: number | string }
  | { c: 'str' | 'date' | 'ts' | 'tstz' | 'time' | 'json'; v: string }
  | { c: 'bool'; v: boolean }
  | { c: 'null' }
  | { c: 'list'; v: Got[] }
  | { c: 'struct'; v: Record<string, Got> }
  | { c: 'other'; v: unknown };

const closeTo = (a: number, b: number, rel = 1e-9): boolean =>
  a === b || Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-300);

/** Seconds written without trailing fractional zeros, the zone as `+00`. */
export const normTime = (s: string): string =>
  s
    .replace('T', ' ')
    .replace(/(\.\d*?)0+(?=$|[+-Z])/, '$1')
    .replace(/\.(?=$|[+-Z])/, '')
    .replace(/Z$|\+00:00$/, '+00');

const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (typeof a === 'number' && typeof b === 'number') return closeTo(a, b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return (
      ka.join() === kb.join() &&
      ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
};

/** Undefined when `got` is `want`; otherwise what differs. */
export const mismatch = (w: Want, g: Got): string | undefined => {
  const show = (): string => `expected ${JSON.stringify(w)}, got ${JSON.stringify(g)}`;
  switch (w.t) {
    case 'null':
      return g.c === 'null' ? undefined : show();
    case 'int':
    case 'frac':
    case 'num':
    case 'approx': {
      if (g.c !== 'int' && g.c !== 'frac') return show();
      if ((w.t === 'int' || w.t === 'frac') && g.c !== w.t) return `${show()} (type class)`;
      const n = Number(g.v);
      return closeTo(n, w.v, w.t === 'approx' ? w.rel : 1e-9) ? undefined : show();
    }
    case 'str':
      return g.c === 'str' && g.v === w.v ? undefined : show();
    case 'date':
    case 'ts':
    case 'tstz':
    case 'time':
      return g.c === w.t && normTime(g.v) === normTime(w.v) ? undefined : show();
    case 'bool':
      return g.c === 'bool' && g.v === w.v ? undefined : show();
    case 'json': {
      if (g.c !== 'json' && g.c !== 'str') return show();
      try {
        return jsonEqual(JSON.parse(g.v), w.v) ? undefined : show();
      } catch {
        return show();
      }
    }
    case 'list': {
      if (g.c !== 'list' || g.v.length !== w.v.length) return show();
      for (let i = 0; i < w.v.length; i++) {
        const d = mismatch(w.v[i] as Want, g.v[i] as Got);
        if (d !== undefined) return `[${i}]: ${d}`;
      }
      return undefined;
    }
    case 'struct': {
      if (g.c !== 'struct') return show();
      const keys = Object.keys(w.v);
      if (keys.join() !== Object.keys(g.v).join()) return show();
      for (const k of keys) {
        const d = mismatch(w.v[k] as Want, g.v[k] as Got);
        if (d !== undefined) return `.${k}: ${d}`;
      }
      return undefined;
    }
  }
};
