/**
 * Canonical text of decoded values, the exact-equality oracle behind hash confirmation, key tuples and
 * tolerance grouping: object keys sorted, numbers reduced to their exact decimal value, strings as JSON.
 * Recursion is bounded by the scanner's depth limit (at most 1000 levels).
 */
import { rawJsonText } from './raw-json.ts';

const NUMBER_RE = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact decimal value of a JSON number text as `[-]digits e E` meaning 0.digits × 10^E, digits without
 * leading or trailing zeros; zero (and -0) is "0".
 * @example canonicalNumberText('1.50e2') === canonicalNumberText('150') // both "15e3"
 */
export function canonicalNumberText(text: string): string {
  const m = NUMBER_RE.exec(text);
  if (m === null) throw new Error(`not a JSON number: ${text}`);
  const int = m[2]!;
  const all = int + (m[3] ?? '');
  let first = 0;
  while (first < all.length && all[first] === '0') first++;
  if (first === all.length) return '0';
  let last = all.length - 1;
  while (all[last] === '0') last--;
  const expText = m[4] ?? '0';
  const shift = int.length - first;
  const e =
    expText.length > 15 ? (BigInt(expText) + BigInt(shift)).toString() : String(Number(expText) + shift);
  return `${m[1]}${all.slice(first, last + 1)}e${e}`;
}

const numberText = (v: unknown): string | undefined => (typeof v === 'number' ? String(v) : rawJsonText(v));

/**
 * Canonical text of a decoded JSON value. With `shape`, every number becomes `#`, so values that could
 * match under a numeric tolerance share one shape.
 */
export function canonicalText(v: unknown, shape = false): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  const num = numberText(v);
  if (num !== undefined) return shape ? '#' : `#${canonicalNumberText(num)}`;
  if (Array.isArray(v)) return `[${v.map((x) => canonicalText(x, shape)).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalText(o[k], shape)}`).join(',')}}`;
  }
  throw new Error(`not a JSON value: ${typeof v}`);
}

/** Numeric tolerance as resolved from the request; `active` is false for the exact default. */
export interface ResolvedTolerance {
  abs: number;
  rel: number;
  active: boolean;
}

/**
 * Equality with numeric tolerance: exact canonical equality, or (when active) two numbers within
 * max(abs, rel·max(|a|,|b|)), computed in doubles; structure, keys and non-numbers must match exactly.
 */
export function tolerantEqual(x: unknown, y: unknown, tol: ResolvedTolerance): boolean {
  const nx = numberText(x);
  const ny = numberText(y);
  if (nx !== undefined || ny !== undefined) {
    if (nx === undefined || ny === undefined) return false;
    if (canonicalNumberText(nx) === canonicalNumberText(ny)) return true;
    if (!tol.active) return false;
    const a = Number(nx);
    const b = Number(ny);
    return Math.abs(a - b) <= Math.max(tol.abs, tol.rel * Math.max(Math.abs(a), Math.abs(b)));
  }
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return x === y;
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    return x.every((v, i) => tolerantEqual(v, y[i], tol));
  }
  const ox = x as Record<string, unknown>;
  const oy = y as Record<string, unknown>;
  const kx = Object.keys(ox);
  if (kx.length !== Object.keys(oy).length) return false;
  return kx.every((k) => Object.hasOwn(oy, k) && tolerantEqual(ox[k], oy[k], tol));
}
