import type { JsonCell } from './adapter.ts';

/**
 * Exact JSON values for result rows, shared by the adapters. A number travels as a JSON number only when that
 * number's text IS the exact value and lies within ±2^53 (so every JSON parser reads it back exactly); any
 * other integer or decimal travels as its exact decimal string. Dates and timestamps are ISO 8601, bytes base64.
 */

const LIMIT = 2n ** 53n;

/** A decimal text (`-12.3400`, `1e5` not accepted) as an exact JSON value. */
export const exactDecimal = (text: string): JsonCell => {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) return text; // NaN, Infinity, anything unexpected: the text as it is
  const sign = m[1] === '-' ? '-' : '';
  const int = (m[2] ?? '').replace(/^0+(?=\d)/, '') || '0';
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const canonical = `${sign}${int}${frac ? `.${frac}` : ''}`;
  if (BigInt(int) >= LIMIT) return canonical === '-0' ? 0 : canonical;
  const n = Number(canonical);
  // The shortest text of the double must be the same decimal, or the number would not be exact.
  if (String(n) === canonical || (canonical === '-0' && n === 0)) return n === 0 ? 0 : n;
  return canonical;
};

/** A 64-bit integer (bigint or its text) as an exact JSON value. */
export const exactInteger = (v: bigint | string | number): JsonCell => {
  // Up to 15 digits is always within ±2^53: no BigInt (a result streams millions of these).
  if (typeof v === 'string' && /^-?\d{1,15}$/.test(v)) return Number(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  const b = typeof v === 'bigint' ? v : BigInt(v);
  return b > -LIMIT && b < LIMIT ? Number(b) : b.toString();
};

/** A binary float: a JSON number, or "NaN" / "Infinity" / "-Infinity" (JSON has none). */
export const exactFloat = (n: number): JsonCell => (Number.isFinite(n) ? n : String(n));

/** Bytes as base64. */
export const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/**
 * A timestamp's text as the server prints it in ISO style (`2024-01-02 03:04:05.5+00`, `…+05:30`, no zone for
 * a timestamp without one) as ISO 8601: `T` between date and time, a `+00` zone as `Z`, `±hh` as `±hh:mm`.
 */
export const isoTimestamp = (text: string): string => {
  const m = /^(\d{4,}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2}(?::?\d{2}){0,2})?( BC)?$/.exec(
    text,
  );
  if (!m) return text; // infinity, BC dates: as the server wrote them
  const zone = m[3];
  let z = '';
  if (zone !== undefined) {
    const [, s, hh, mm] = /^([+-])(\d{2}):?(\d{2})?/.exec(zone) ?? [];
    z = hh === '00' && (mm === undefined || mm === '00') ? 'Z' : `${s ?? '+'}${hh ?? '00'}:${mm ?? '00'}`;
  }
  return `${m[1]}T${m[2]}${z}${m[4] ?? ''}`;
};

/** PostgreSQL's bytea text output (`\x48656c6c6f`) as base64. */
export const pgByteaBase64 = (text: string): string =>
  text.startsWith('\\x') ? Buffer.from(text.slice(2), 'hex').toString('base64') : text;
