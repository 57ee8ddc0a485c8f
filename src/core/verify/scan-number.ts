import {
  FLAG_INEXACT,
  fmix,
  mixWord,
  NEED_MORE,
  SEED_NUMBER_A,
  SEED_SHORT_A,
  TOKEN,
  ZERO_A,
} from './hash-mix.ts';
import { malformed } from './scan-string.ts';

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * Hashes one JSON number by its exact decimal value, written as 0.D × 10^e with D its significant digits (no
 * leading or trailing zeros). So `1`, `1.0`, `10e-1` and `0.1e1` hash alike, `-0` equals `0`, and
 * 9007199254740993 differs from 9007199254740992: no double is ever involved. Numbers with at most 15
 * significant digits (D exact in a double) hash D and e as integers; longer ones hash D's digits in chunks.
 * Sets FLAG_INEXACT when a double might not hold the value (> 15 significant digits or |e| > 290): such rows
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
  // Fast path, one pass: no exponent and at most 15 significant digits.
  let d = 0;
  let e = 0;
  const intStart = p;
  if (c === 0x30) {
    p++;
  } else if (c >= 0x31 && c <= 0x39) {
    do {
      d = d * 10 + (c - 0x30);
      if (++p >= end) return NEED_MORE;
      c = buf[p]!;
    } while (c >= 0x30 && c <= 0x39);
    e = p - intStart;
  } else throw malformed('invalid number', start);
  if (p >= end) return NEED_MORE;
  c = buf[p]!;
  // Significant digits: all integer digits, or the fraction after its leading zeros when the integer is 0.
  let nd = e;
  if (c === 0x2e) {
    const fracStart = ++p;
    if (d === 0) {
      while (p < end && buf[p] === 0x30) p++;
      e = fracStart - p;
    }
    const sigStart = p;
    while (p < end && (c = buf[p]!) >= 0x30 && c <= 0x39) {
      d = d * 10 + (c - 0x30);
      p++;
    }
    if (p >= end) return NEED_MORE;
    if (p === fracStart) throw malformed('invalid number', start);
    nd += p - sigStart;
  }
  if (c === 0x65 || c === 0x45 || nd > 15) return scanNumberSlow(buf, start, end);
  if (d === 0) {
    zeroToken();
    return p;
  }
  // Trailing zeros are not significant: 1200 → 0.12e4, "1.50" → 0.15e1.
  if (buf[p - 1] === 0x30 || buf[p - 1] === 0x2e) {
    let q = p - 1;
    let tz = 0;
    for (; buf[q] === 0x30 || buf[q] === 0x2e; q--) if (buf[q] === 0x30) tz++;
    d /= POW10[tz]!;
  }
  shortToken(neg, d, e);
  return p;
}

const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** Token of 0.d × 10^e for an integer d < 10^15 without trailing zeros (exact in a double). */
function shortToken(neg: boolean, d: number, e: number): void {
  const hi = d <= 0x7fffffff ? 0 : Math.floor(d * 2.3283064365386963e-10);
  TOKEN[0] = fmix(mixWord(SEED_SHORT_A ^ (d | 0), (hi + Math.imul(e, 0x10001)) ^ (neg ? 0x40000000 : 0)));
  TOKEN[2] = e > 290 || e < -290 ? FLAG_INEXACT : 0;
}

function zeroToken(): void {
  TOKEN[0] = ZERO_A;
  TOKEN[2] = 0;
}

/** Any number, in two passes: structure first, then the significant digits and the exponent. */
function scanNumberSlow(buf: Uint8Array, p: number, end: number): number {
  const neg = buf[p] === 0x2d;
  if (neg) p++;
  const intStart = p;
  if (buf[p] === 0x30) p++;
  else while (p < end && isDigit(buf[p]!)) p++;
  const intEnd = p;
  let fracStart = p;
  let fracEnd = p;
  if (p < end && buf[p] === 0x2e) {
    fracStart = ++p;
    while (p < end && isDigit(buf[p]!)) p++;
    fracEnd = p;
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
    if (p < end && p === expStart) throw malformed('invalid number', intStart);
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
      zeroToken();
      return p;
    }
  }
  let last = fracEnd > fracStart ? fracEnd - 1 : intEnd - 1;
  while (buf[last] === 0x2e || buf[last] === 0x30) last--;
  const e: number | bigint =
    typeof exp === 'number' ? intEnd - intStart - lead + exp : BigInt(intEnd - intStart - lead) + exp;
  let digits = 0;
  let value = 0;
  for (let i = first; i <= last; i++) {
    if (buf[i] === 0x2e) continue;
    value = value * 10 + (buf[i]! - 0x30);
    digits++;
  }
  if (digits <= 15 && typeof e === 'number' && e >= -0x7fffffff && e <= 0x7fffffff) {
    shortToken(neg, value, e);
    return p;
  }
  let h = SEED_NUMBER_A ^ (neg ? 1 : 0);
  // Significant digits in chunks of 9 (an int32); chunk boundaries depend only on the digit string.
  let v = 0;
  let k = 0;
  for (let i = first; i <= last; i++) {
    if (buf[i] === 0x2e) continue;
    v = v * 10 + (buf[i]! - 0x30);
    if (++k === 9) {
      h = mixWord(h, v);
      v = 0;
      k = 0;
    }
  }
  if (k !== 0) h = mixWord(h, v);
  if (typeof e === 'number' && e >= -0x7fffffff && e <= 0x7fffffff) {
    h = mixWord(h, e);
  } else {
    // Only values far outside any double's range get here; hash the exponent's decimal text.
    const text = e.toString();
    h = mixWord(h, 0x7fffffff);
    for (let i = 0; i < text.length; i++) h = mixWord(h, text.charCodeAt(i));
  }
  TOKEN[0] = fmix(h ^ digits);
  TOKEN[2] = FLAG_INEXACT;
  return p;
}
