import {
  FLAG_INEXACT,
  fmix,
  mixA,
  mixB,
  NEED_MORE,
  SEED_NUMBER_A,
  SEED_NUMBER_B,
  TOKEN,
  ZERO_A,
  ZERO_B,
} from './hash-mix.ts';
import { malformed } from './scan-string.ts';

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * Hashes one JSON number by its exact decimal value: sign, significant digits (no leading or trailing
 * zeros) and the exponent E with value = 0.d1d2…dn × 10^E. So `1`, `1.0`, `10e-1` and `0.1e1` hash alike,
 * `-0` equals `0`, and 9007199254740993 differs from 9007199254740992 (no double is ever involved).
 * Sets FLAG_INEXACT when a double might not hold the value (> 15 significant digits or |E| > 290): such rows
 * are decoded from their source text rather than with plain JSON.parse.
 *
 * @returns index after the number (it ends at the first byte that cannot continue it), or NEED_MORE
 */
export function scanNumber(buf: Uint8Array, p: number, end: number): number {
  const start = p;
  let c = buf[p]!;
  const neg = c === 0x2d;
  if (neg) {
    if (++p >= end) return NEED_MORE;
    c = buf[p]!;
  }
  const intStart = p;
  if (c === 0x30) p++;
  else if (isDigit(c)) while (p < end && isDigit(buf[p]!)) p++;
  else throw malformed('invalid number', start);
  const intEnd = p;
  let fracStart = p;
  let fracEnd = p;
  if (p < end && buf[p] === 0x2e) {
    fracStart = ++p;
    while (p < end && isDigit(buf[p]!)) p++;
    fracEnd = p;
    if (p < end && fracEnd === fracStart) throw malformed('invalid number', start);
  }
  let exp: number | bigint = 0;
  if (p < end && (buf[p] === 0x65 || buf[p] === 0x45)) {
    p++;
    let expNeg = false;
    if (p < end && (buf[p] === 0x2b || buf[p] === 0x2d)) expNeg = buf[p++] === 0x2d;
    const expStart = p;
    while (p < end && buf[p] === 0x30) p++;
    const sigStart = p;
    while (p < end && isDigit(buf[p]!)) p++;
    if (p < end && p === expStart) throw malformed('invalid number', start);
    if (p - sigStart <= 15) {
      let v = 0;
      for (let i = sigStart; i < p; i++) v = v * 10 + (buf[i]! - 0x30);
      exp = expNeg ? -v : v;
    } else {
      let text = '';
      for (let i = sigStart; i < p; i++) text += String.fromCharCode(buf[i]!);
      exp = BigInt(text) * (expNeg ? -1n : 1n);
    }
  }
  // A number is only complete once a byte that cannot continue it has arrived.
  if (p >= end) return NEED_MORE;

  // Leading zeros can only come from "0.000…"; skip them across the decimal point.
  let first = intStart;
  while (first < intEnd && buf[first] === 0x30) first++;
  let lead = first - intStart;
  if (first === intEnd) {
    first = fracStart;
    while (first < fracEnd && buf[first] === 0x30) first++;
    lead += first - fracStart;
    if (first === fracEnd) {
      TOKEN[0] = ZERO_A;
      TOKEN[1] = ZERO_B;
      TOKEN[2] = 0;
      return p;
    }
  }
  let last = fracEnd > fracStart ? fracEnd - 1 : intEnd - 1;
  for (;;) {
    if (buf[last] === 0x2e) last--;
    else if (buf[last] === 0x30) last--;
    else break;
  }
  let a = mixA(SEED_NUMBER_A, neg ? 1 : 0);
  let b = mixB(SEED_NUMBER_B, neg ? 1 : 0);
  // Significant digits in chunks of up to 9 (an int32); chunk boundaries depend only on the digit string.
  let v = 0;
  let k = 0;
  let digits = 0;
  for (let i = first; i <= last; i++) {
    const d = buf[i]!;
    if (d === 0x2e) continue;
    v = v * 10 + (d - 0x30);
    digits++;
    if (++k === 9) {
      a = mixA(a, v);
      b = mixB(b, v);
      v = 0;
      k = 0;
    }
  }
  if (k !== 0) {
    a = mixA(a, v);
    b = mixB(b, v);
  }
  const e: number | bigint =
    typeof exp === 'number' ? intEnd - intStart - lead + exp : BigInt(intEnd - intStart - lead) + exp;
  if (typeof e === 'number' && e >= -0x7fffffff && e <= 0x7fffffff) {
    a = mixA(a, e);
    b = mixB(b, e);
  } else {
    // Only values far outside any double's range get here; hash the exponent's decimal text.
    const text = e.toString();
    a = mixA(a, 0x7fffffff);
    b = mixB(b, 0x7fffffff);
    for (let i = 0; i < text.length; i++) {
      a = mixA(a, text.charCodeAt(i));
      b = mixB(b, text.charCodeAt(i));
    }
  }
  TOKEN[0] = fmix(mixA(a, digits));
  TOKEN[1] = fmix(mixB(b, digits));
  TOKEN[2] = digits > 15 || typeof e !== 'number' || e > 290 || e < -290 ? FLAG_INEXACT : 0;
  return p;
}
