/**
 * A deliberately simple reference implementation of the POST /verify comparison over parsed values, used by
 * the tests to cross-check the byte scanner (compare.ts). Quadratic in places; never used on requests.
 * Numbers in the input are JS numbers or `JSON.rawJSON` values (see parseExact).
 */
import { GatewayError } from '../errors.ts';
import { rawJson, rawJsonText } from './raw-json.ts';
import { DEFAULT_MAX_DIFFERENCES } from './types.ts';
import type { DifferenceEntry, JsonRow, VerifyOptions, VerifyResult } from './types.ts';

/** Exact decimal value of a number text, computed with BigInt: "coefficient e exponent", trailing zeros moved. */
export function referenceNumberKey(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) throw new Error(`not a number: ${text}`);
  const frac = m[3] ?? '';
  let coef = BigInt(m[2]! + frac);
  let exp = BigInt(m[4] ?? '0') - BigInt(frac.length);
  if (coef === 0n) return '0';
  while (coef % 10n === 0n) {
    coef /= 10n;
    exp += 1n;
  }
  return `${m[1]}${coef}e${exp}`;
}

const numberSource = (v: unknown): string | undefined => (typeof v === 'number' ? String(v) : rawJsonText(v));

/** JSON.parse keeping every number exact: a JS number when its decimal value survives, else raw JSON. */
export function parseExact(text: string): unknown {
  const reviver = (_k: string, v: unknown, ctx?: { source?: string }): unknown =>
    typeof v === 'number' &&
    ctx?.source !== undefined &&
    (!Number.isFinite(v) || referenceNumberKey(String(v)) !== referenceNumberKey(ctx.source))
      ? rawJson(ctx.source)
      : v;
  return JSON.parse(text, reviver);
}

function identity(v: unknown): string {
  const n = numberSource(v);
  if (n !== undefined) return `n${referenceNumberKey(n)}`;
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `a[${v.map(identity).join(',')}]`;
  const entries = Object.entries(v as JsonRow).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `o{${entries.map(([k, x]) => `${JSON.stringify(k)}:${identity(x)}`).join(',')}}`;
}

function tolerantlyEqual(x: unknown, y: unknown, abs: number, rel: number): boolean {
  if (identity(x) === identity(y)) return true;
  const nx = numberSource(x);
  const ny = numberSource(y);
  if (nx !== undefined && ny !== undefined) {
    if (abs === 0 && rel === 0) return false;
    const a = Number(nx);
    const b = Number(ny);
    return Math.abs(a - b) <= Math.max(abs, rel * Math.max(Math.abs(a), Math.abs(b)));
  }
  if (Array.isArray(x) && Array.isArray(y)) {
    return x.length === y.length && x.every((v, i) => tolerantlyEqual(v, y[i], abs, rel));
  }
  const isObj = (v: unknown): v is JsonRow =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && numberSource(v) === undefined;
  if (isObj(x) && isObj(y)) {
    const kx = Object.keys(x).sort();
    const ky = Object.keys(y).sort();
    return kx.join('\u0000') === ky.join('\u0000') && kx.every((k) => tolerantlyEqual(x[k], y[k], abs, rel));
  }
  return false;
}

function checkRows(side: 'original' | 'rewritten', rows: unknown): JsonRow[] {
  if (!Array.isArray(rows))
    throw new GatewayError('invalid-verify-input', `${side} must be an array`, { side, index: null });
  rows.forEach((r, index) => {
    if (typeof r !== 'object' || r === null || Array.isArray(r) || numberSource(r) !== undefined) {
      throw new GatewayError('invalid-verify-input', `${side}[${index}] is not an object`, { side, index });
    }
  });
  return rows as JsonRow[];
}

/** The contract's comparison, written for clarity (see compare.ts for the documented semantics). */
export function referenceVerify(
  original: unknown,
  rewritten: unknown,
  options: VerifyOptions = {},
): VerifyResult {
  const o = checkRows('original', original);
  const r = checkRows('rewritten', rewritten);
  const ids = [o.map(identity), r.map(identity)];
  const total = (side: number, id: string): number => ids[side]!.filter((x) => x === id).length;
  // The i-th occurrence of a row is matched while i < the smaller of its two counts.
  const unmatched = ids.map((sideIds) => {
    const seen = new Map<string, number>();
    const out: number[] = [];
    sideIds.forEach((id, i) => {
      const k = seen.get(id) ?? 0;
      seen.set(id, k + 1);
      if (k >= Math.min(total(0, id), total(1, id))) out.push(i);
    });
    return out;
  });
  const abs = options.tolerance?.abs ?? 0;
  const rel = options.tolerance?.rel ?? 0;
  const taken = new Set<number>();
  const missing: number[] = [];
  const changed: [number, number][] = [];
  const key = options.key;
  for (const i of unmatched[0]!) {
    if (key !== undefined) {
      const sameKey = (j: number): boolean =>
        key.every((k) =>
          Object.hasOwn(o[i]!, k)
            ? Object.hasOwn(r[j]!, k) && identity(o[i]![k]) === identity(r[j]![k])
            : !Object.hasOwn(r[j]!, k),
        );
      const j = unmatched[1]!.find((x) => !taken.has(x) && sameKey(x));
      if (j === undefined) missing.push(i);
      else {
        taken.add(j);
        if (!tolerantlyEqual(o[i], r[j], abs, rel)) changed.push([i, j]);
      }
    } else {
      const j = unmatched[1]!.find((x) => !taken.has(x) && tolerantlyEqual(o[i], r[x], abs, rel));
      if (j === undefined) missing.push(i);
      else taken.add(j);
    }
  }
  const extra = unmatched[1]!.filter((j) => !taken.has(j));
  const entries: DifferenceEntry[] = [
    ...missing.map((i) => ({ row: i, original: o[i]!, rewritten: null })),
    ...changed.map(([i, j]) => ({ row: i, original: o[i]!, rewritten: r[j]!, rewritten_row: j })),
  ].sort((a, b) => a.row - b.row);
  entries.push(...extra.map((j) => ({ row: j, original: null, rewritten: r[j]! })));
  const max = options.maxDifferences ?? DEFAULT_MAX_DIFFERENCES;
  return {
    equal: entries.length === 0,
    differences: entries.slice(0, max),
    summary: {
      original_rows: o.length,
      rewritten_rows: r.length,
      missing: missing.length,
      extra: extra.length,
      changed: changed.length,
    },
    truncated: entries.length > max,
  };
}
