/**
 * An order-insensitive fingerprint of a result's multiset of rows, computed while the rows stream by, in
 * constant memory: what shadow verification compares (the query as rewritten against the query as written).
 *
 * Each row is reduced to the canonical text POST /verify compares rows by (`canonicalText`: numbers by exact
 * decimal value, so `1` = `1.0`, strings exactly, `null` apart from a missing value, arrays in order, object
 * keys sorted); the text is hashed to 128 bits with SHA-256 under a secret prefix key, and the fingerprint is the SUM of
 * the row hashes modulo 2^128, the row count, and a hash of the column names in order. A sum (not a xor)
 * so that a row occurring twice does not cancel out; the count is kept beside it as a cheap first check.
 *
 * Why collisions are negligible: with the row hash a random function (SHA-256 of a key the fingerprinting
 * process draws at random and never shows, followed by the row's text: a pseudo-random function, since no hash
 * is ever shown there is nothing to extend), two different multisets differ in some row's multiplicity by
 * d ≠ 0, and their sums are equal only if d·h(row) equals a value independent of h(row) mod 2^128. For
 * d = 2^k·odd this happens with probability 2^-(128-k), and k ≤ 53 for any count a JS number holds, so at
 * worst 2^-75 per comparison, and 2^-128 for the common case of a row present on one side only. The key
 * matters: with a public hash, a user could craft rows whose hashes sum alike (Wagner's k-sum), which would
 * hide a wrong rewrite of their own query only, but a secret key rules it out at no cost.
 *
 * @example
 * const fp = createFingerprinter(key); fp.columns(['a']); fp.add([1]); fp.add([null]); fp.result()
 */
import { createHash, hash } from 'node:crypto';
import { canonicalNumberText, canonicalText } from './canonical.ts';
import { rawJson, rawJsonText } from './raw-json.ts';

export type Fingerprint = {
  /** Hex hash of the column names in order (the contract wants the same names in the same order). */
  readonly columns: string;
  readonly rows: number;
  /** The sum of the rows' 128-bit hashes modulo 2^128, 32 hex digits. */
  readonly sum: string;
  /** More rows came than the fingerprinter's limit: `sum` covers the first `limit` only (`rows` counts all). */
  readonly truncated: boolean;
};

export type Fingerprinter = {
  /** The result's column names, in order (once, before or after the rows). */
  readonly columns: (names: readonly string[]) => void;
  /** One row's values, in column order, as JSON-model values (exact numbers as `JSON.rawJSON` text). */
  readonly add: (row: readonly unknown[]) => void;
  readonly result: () => Fingerprint;
};

/** A number that is not finite has no JSON form; it is compared by its name, apart from any string. */
const cell = (v: unknown): unknown => {
  if (typeof v === 'number' && !Number.isFinite(v)) return { '#nonfinite': String(v) };
  if (typeof v === 'bigint') return rawJson(v.toString());
  if (Array.isArray(v)) return v.map(cell);
  if (v !== null && typeof v === 'object' && rawJsonText(v) === undefined) {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).map((k) => [k, cell(o[k])]));
  }
  return v;
};

/** `canonicalText` of a safe integer without the regular expression: digits without trailing zeros, e = length. */
const integerText = (n: number): string => {
  if (n === 0) return '#0';
  const t = String(n);
  const neg = t.charCodeAt(0) === 45;
  const digits = neg ? t.slice(1) : t;
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  return `#${neg ? '-' : ''}${digits.slice(0, end)}e${digits.length}`;
};

/** One value's canonical text: the scalars a result is mostly made of without building anything. */
const cellText = (v: unknown): string => {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' && Number.isSafeInteger(v)) return integerText(v);
  const raw = rawJsonText(v);
  return raw !== undefined ? `#${canonicalNumberText(raw)}` : canonicalText(cell(v));
};

/** The canonical text of one row, as POST /verify compares it (values in column order). */
export const canonicalRowText = (row: readonly unknown[]): string => {
  let out = '[';
  for (let i = 0; i < row.length; i++) out += (i > 0 ? ',' : '') + cellText(row[i]);
  return `${out}]`;
};

/**
 * `limit`: rows past it are counted, not hashed (the caller bounds the CPU a check may cost; a fingerprint
 * that is `truncated` proves nothing about the rows past the limit).
 */
export const createFingerprinter = (key: Uint8Array, limit = Infinity): Fingerprinter => {
  // The key as a text prefix: one-shot `hash` of a string is several times cheaper than an HMAC object per row.
  const prefix = `${Buffer.from(key).toString('hex')}\n`;
  // Four 32-bit words, least significant first; carries propagate, the last one falls off (mod 2^128).
  const sum = [0, 0, 0, 0];
  let rows = 0;
  let columns = '';
  return {
    columns: (names) => {
      columns = createHash('sha256').update(prefix).update(JSON.stringify(names)).digest('hex').slice(0, 32);
    },
    add: (row) => {
      if (++rows > limit) return;
      const h = hash('sha256', prefix + canonicalRowText(row), 'buffer');
      let carry = 0;
      for (let i = 0; i < 4; i++) {
        const t = sum[i]! + h.readUInt32LE(4 * i) + carry;
        sum[i] = t >>> 0;
        carry = t > 0xffffffff ? 1 : 0;
      }
    },
    result: () => ({
      columns,
      rows,
      truncated: rows > limit,
      sum: sum
        .map((w) => w.toString(16).padStart(8, '0'))
        .reverse()
        .join(''),
    }),
  };
};

export const sameFingerprint = (a: Fingerprint, b: Fingerprint): boolean =>
  a.columns === b.columns && a.rows === b.rows && a.sum === b.sum;
