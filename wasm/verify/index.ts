
const NEED_MORE: i32 = -1;
const FALLBACK: i32 = -2;
const FLAG_INEXACT: i32 = 1;

const SEED_STRING_A: i32 = 0x2f1b7c43;
const SEED_NUMBER_A: i32 = 0x3c6ef372;
const SEED_SHORT_A: i32 = 0x6a09e667;
const SEED_OBJECT_A: i32 = 0x243f6a88;
const SEED_OBJECT_B: i32 = 0x13198a2e;

@inline function mixWord(h: i32, x: i32): i32 {
  h = (h ^ x) * <i32>0x9e3779b1;
  return rotl<i32>(h, 13);
}
@inline function mixWordB(h: i32, x: i32): i32 {
  h = (h + x) * <i32>0x85ebca77;
  return rotl<i32>(h, 17);
}
@inline function fmix(h: i32): i32 {
  h ^= <i32>(<u32>h >> 16);
  h = h * <i32>0x85ebca6b;
  h ^= <i32>(<u32>h >> 13);
  h = h * <i32>0xc2b2ae35;
  return h ^ <i32>(<u32>h >> 16);
}
@inline function member(k: i32, v: i32): i32 {
  const m = (k ^ (v * <i32>0xcc9e2d51)) * <i32>0x1b873593;
  return m ^ <i32>(<u32>m >> 16);
}
@inline function spread(m: i32): i32 {
  return (m ^ <i32>(<u32>m >> 15)) * <i32>0x2c1b3c6d;
}

let TRUE_A: i32 = 0;
let FALSE_A: i32 = 0;
let NULL_A: i32 = 0;
let ZERO_A: i32 = 0;
export function init(): void {
  TRUE_A = fmix(0x74727565);
  FALSE_A = fmix(0x66616c73);
  NULL_A = fmix(0x6e756c6c);
  ZERO_A = fmix(0x7a65726f);
}

// Outputs.
let tok: i32 = 0;
let tokFlags: i32 = 0;
let outA: i32 = 0;
let outB: i32 = 0;
let outFlags: i32 = 0;

// One compare for the common case (a byte above the space); then a bit test for \t \n \r and space.
@inline function isWs(c: u32): bool { return c <= 0x20 && ((<u64>0x100002600 >> <u64>c) & 1) != 0; }

// ---- strings
let tmp0: u32 = 0; // up to 4 bytes packed little-endian
let tmpLen: i32 = 0;

function putCodePoint(cp: u32): void {
  if (cp < 0x80) { tmp0 = cp; tmpLen = 1; }
  else if (cp < 0x800) { tmp0 = (0xc0 | (cp >> 6)) | ((0x80 | (cp & 63)) << 8); tmpLen = 2; }
  else if (cp < 0x10000) {
    tmp0 = (0xe0 | (cp >> 12)) | ((0x80 | ((cp >> 6) & 63)) << 8) | ((0x80 | (cp & 63)) << 16); tmpLen = 3;
  } else {
    tmp0 = (0xf0 | (cp >> 18)) | ((0x80 | ((cp >> 12) & 63)) << 8) | ((0x80 | ((cp >> 6) & 63)) << 16) | ((0x80 | (cp & 63)) << 24);
    tmpLen = 4;
  }
}

function hex4(p: usize): i32 {
  let v: i32 = 0;
  for (let i: usize = 0; i < 4; i++) {
    const c = <i32>load<u8>(p + i);
    let d: i32 = -1;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    if (d < 0) return -1;
    v = (v << 4) | d;
  }
  return v;
}

/** returns index after escape, NEED_MORE, or FALLBACK on anything invalid. */
function unescapeAt(p: usize, end: usize): i64 {
  if (p + 1 >= end) return NEED_MORE;
  const e = <u32>load<u8>(p + 1);
  let v: u32 = 0;
  if (e == 0x22 || e == 0x5c || e == 0x2f) v = e;
  else if (e == 0x62) v = 8;
  else if (e == 0x66) v = 12;
  else if (e == 0x6e) v = 10;
  else if (e == 0x72) v = 13;
  else if (e == 0x74) v = 9;
  else if (e == 0x75) {
    if (p + 6 > end) return NEED_MORE;
    const u = hex4(p + 2);
    if (u < 0) return FALLBACK;
    if (u >= 0xd800 && u <= 0xdbff) {
      if (p + 12 > end) return FALLBACK; // rare: let JS handle the boundary logic
      if (load<u8>(p + 6) == 0x5c && load<u8>(p + 7) == 0x75) {
        const l = hex4(p + 8);
        if (l < 0) return FALLBACK;
        if (l >= 0xdc00 && l <= 0xdfff) {
          putCodePoint(0x10000 + ((<u32>u - 0xd800) << 10) + (<u32>l - 0xdc00));
          return <i64>(p + 12);
        }
      }
    }
    putCodePoint(<u32>u);
    return <i64>(p + 6);
  } else return FALLBACK;
  tmp0 = v; tmpLen = 1;
  return <i64>(p + 2);
}

function utf8At(p: usize, end: usize): i64 {
  const c = <u32>load<u8>(p);
  const len: i32 = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (len == 0) return FALLBACK;
  if (p + <usize>len > end) return NEED_MORE;
  const c1 = <u32>load<u8>(p + 1);
  const lo: u32 = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
  const hi: u32 = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
  if (c1 < lo || c1 > hi) return FALLBACK;
  let w: u32 = c | (c1 << 8);
  for (let i = 2; i < len; i++) {
    const ci = <u32>load<u8>(p + <usize>i);
    if ((ci & 0xc0) != 0x80) return FALLBACK;
    w |= ci << (<u32>i * 8);
  }
  tmp0 = w; tmpLen = len;
  return <i64>(p + <usize>len);
}

/** p just after the opening quote; returns index after the closing quote; token in tok. */
function scanString(p: usize, end: usize): i64 {
  let h: i32 = SEED_STRING_A;
  // Bytes not yet mixed (fewer than 4, little-endian) and their number in bits: every full 4-byte word of the
  // unescaped string is mixed in order, the last partial word once at the end (as the JS scanner does).
  let w: u64 = 0;
  let sh: u64 = 0;
  let delta: i32 = 0;
  const start = p;
  while (true) {
    let c: u32;
    if (p + 8 <= end) {
      // Eight bytes at a time: the plain ones (0x20..0x7f but " and \\) before the first other byte are
      // appended whole. In each test below the lowest flagged byte is exact (borrows only move upwards).
      const x = load<u64>(p);
      const q = x ^ 0x2222222222222222;
      const b = x ^ 0x5c5c5c5c5c5c5c5c;
      const m =
        (((x - 0x2020202020202020) & ~x) | ((q - 0x0101010101010101) & ~q) | ((b - 0x0101010101010101) & ~b) | x) &
        0x8080808080808080;
      if (m == 0) {
        if (sh == 0) h = mixWord(mixWord(h, <i32>x), <i32>(x >> 32));
        else {
          const lo = w | (x << sh);
          h = mixWord(mixWord(h, <i32>lo), <i32>(lo >> 32));
          w = x >> (64 - sh);
        }
        p += 8;
        continue;
      }
      const bits = ctz<u64>(m) - 7; // the plain bytes, in bits (0..56)
      if (bits != 0) {
        const y = x & ((<u64>1 << bits) - 1);
        let lo = w | (y << sh);
        let total = sh + bits;
        if (total >= 32) {
          h = mixWord(h, <i32>lo);
          if (total >= 64) {
            h = mixWord(h, <i32>(lo >> 32));
            lo = y >> (64 - sh); // sh > 0 here: bits <= 56
            total -= 64;
          } else {
            lo >>= 32;
            total -= 32;
          }
        }
        w = lo;
        sh = total;
        p += <usize>(bits >> 3);
      }
      c = <u32>load<u8>(p);
    } else {
      // The last bytes before `end`, one at a time.
      if (p >= end) return NEED_MORE;
      c = <u32>load<u8>(p);
      if (c >= 0x20 && c < 0x80 && c != 0x22 && c != 0x5c) {
        w |= <u64>c << sh;
        sh += 8;
        if (sh == 32) { h = mixWord(h, <i32>w); w = 0; sh = 0; }
        p++;
        continue;
      }
    }
    if (c == 0x22) break;
    let r: i64;
    if (c == 0x5c) r = unescapeAt(p, end);
    else if (c >= 0x80) r = utf8At(p, end);
    else return FALLBACK;
    if (r < 0) return r;
    delta += tmpLen - <i32>(<usize>r - p);
    // Append the 1..4 bytes in tmp0.
    let lo = w | (<u64>tmp0 << sh);
    let total = sh + (<u64>tmpLen << 3);
    if (total >= 32) {
      h = mixWord(h, <i32>lo);
      lo >>= 32;
      total -= 32;
    }
    w = lo;
    sh = total;
    p = <usize>r;
  }
  if (sh != 0) h = mixWord(h, <i32>w);
  tok = fmix(h ^ <i32>(p - start + <usize>delta));
  return <i64>(p + 1);
}

// ---- numbers
const POW10I: StaticArray<i64> = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000, 1000000000000000];

@inline function shortToken(neg: bool, d: f64, e: i32): void {
  const hi: i32 = d <= 2147483647 ? 0 : <i32>Math.floor(d * 2.3283064365386963e-10);
  const lo: i32 = <i32><i64>d;
  tok = fmix(mixWord(SEED_SHORT_A ^ lo, (hi + e * 0x10001) ^ (neg ? 0x40000000 : 0)));
  tokFlags = e > 290 || e < -290 ? FLAG_INEXACT : 0;
}

/** shortToken of an integer value below 2^53 (then floor(d / 2^32) is d >> 32): no floating point. */
@inline function shortTokenI(neg: bool, d: i64, e: i32): void {
  const hi = <i32>(d >> 32);
  const lo = <i32>d;
  tok = fmix(mixWord(SEED_SHORT_A ^ lo, (hi + e * 0x10001) ^ (neg ? 0x40000000 : 0)));
  tokFlags = e > 290 || e < -290 ? FLAG_INEXACT : 0;
}

@inline function isDigit(c: u32): bool { return c - 0x30 < 10; }

/** Whether the 8 bytes of x are all ASCII digits. */
@inline function allDigits(x: u64): bool {
  return ((x | (x + 0x4646464646464646) | (x - 0x3030303030303030)) & 0x8080808080808080) == 0;
}

/** The value of the 8 digits of x (the first in its lowest byte), combined pairwise (Lemire's method). */
@inline function digits8(x: u64): i64 {
  let v = x - 0x3030303030303030;
  v = v * 10 + (v >> 8);
  v = ((v & 0x000000ff000000ff) * (100 + (<u64>1000000 << 32)) + ((v >> 16) & 0x000000ff000000ff) * (1 + (<u64>10000 << 32))) >> 32;
  return <i64>v;
}

@inline function scanNumber(p: usize, end: usize): i64 {
  const start = p;
  let c = <u32>load<u8>(p);
  const neg = c == 0x2d;
  if (neg) {
    if (++p >= end) return NEED_MORE;
    c = <u32>load<u8>(p);
  }
  // Exact up to 18 digits; beyond 15 the value is not used (long integers and the general path read the bytes).
  let d: i64 = 0;
  let e: i32 = 0;
  const intStart = p;
  if (c == 0x30) p++;
  else if (c >= 0x31 && c <= 0x39) {
    // Eight digits at a time while there are (long integers), then one at a time.
    while (p + 8 <= end && allDigits(load<u64>(p))) {
      d = d * 100000000 + digits8(load<u64>(p));
      p += 8;
    }
    while (true) {
      if (p >= end) return NEED_MORE;
      c = <u32>load<u8>(p);
      if (!isDigit(c)) break;
      d = d * 10 + <i64>(c - 0x30);
      p++;
    }
    e = <i32>(p - intStart);
  } else return FALLBACK;
  if (p >= end) return NEED_MORE;
  c = <u32>load<u8>(p);
  let nd = e;
  if (c == 0x2e) {
    const fracStart = ++p;
    if (d == 0) {
      while (p < end && load<u8>(p) == 0x30) p++;
      e = <i32>fracStart - <i32>p;
    }
    const sigStart = p;
    while (p < end && isDigit((c = <u32>load<u8>(p)))) {
      d = d * 10 + <i64>(c - 0x30);
      p++;
    }
    if (p >= end) return NEED_MORE;
    if (p == fracStart) return FALLBACK;
    nd += <i32>(p - sigStart);
  }
  if (c == 0x65 || c == 0x45) return scanNumberSlow(start, end);
  if (nd > 15) {
    // Long integers (ids, int64): no second pass. A fraction or leading zeros take the general path.
    if (intStart + <usize>nd != p || d == 0) return scanNumberSlow(start, end);
    if (nd <= 18) {
      longIntToken(d, neg, nd);
      return <i64>p;
    }
    let last = p - 1;
    while (load<u8>(last) == 0x30) last--;
    digitsToken(intStart, last, neg, nd);
    return <i64>p;
  }
  if (d == 0) { tok = ZERO_A; tokFlags = 0; return <i64>p; }
  const last = <u32>load<u8>(p - 1);
  if (last == 0x30 || last == 0x2e) {
    let q = p - 1;
    let tz = 0;
    for (; ; q--) {
      const b = <u32>load<u8>(q);
      if (b == 0x30) tz++;
      else if (b != 0x2e) break;
    }
    d /= unchecked(POW10I[tz]);
  }
  shortTokenI(neg, d, e);
  return <i64>p;
}

function scanNumberSlow(p: usize, end: usize): i64 {
  const neg = load<u8>(p) == 0x2d;
  if (neg) p++;
  const intStart = p;
  if (load<u8>(p) == 0x30) p++;
  else while (p < end && isDigit(load<u8>(p))) p++;
  const intEnd = p;
  let fracStart = p;
  let fracEnd = p;
  if (p < end && load<u8>(p) == 0x2e) {
    fracStart = ++p;
    while (p < end && isDigit(load<u8>(p))) p++;
    fracEnd = p;
  }
  let exp: i64 = 0;
  if (p < end && (load<u8>(p) == 0x65 || load<u8>(p) == 0x45)) {
    p++;
    let expNeg = false;
    if (p < end && (load<u8>(p) == 0x2b || load<u8>(p) == 0x2d)) expNeg = load<u8>(p++) == 0x2d;
    const expStart = p;
    while (p < end && load<u8>(p) == 0x30) p++;
    const sigStart = p;
    while (p < end && isDigit(load<u8>(p))) p++;
    if (p < end && p == expStart) return FALLBACK;
    if (p - sigStart > 15) return FALLBACK; // BigInt exponents: JS
    let v: i64 = 0;
    for (let i = sigStart; i < p; i++) v = v * 10 + <i64>(load<u8>(i) - 0x30);
    exp = expNeg ? -v : v;
  }
  if (p >= end) return NEED_MORE;
  let first = intStart;
  while (first < intEnd && load<u8>(first) == 0x30) first++;
  let lead = <i64>(first - intStart);
  if (first == intEnd) {
    first = fracStart;
    while (first < fracEnd && load<u8>(first) == 0x30) first++;
    lead += <i64>(first - fracStart);
    if (first == fracEnd) { tok = ZERO_A; tokFlags = 0; return <i64>p; }
  }
  let last = fracEnd > fracStart ? fracEnd - 1 : intEnd - 1;
  while (load<u8>(last) == 0x2e || load<u8>(last) == 0x30) last--;
  const e64: i64 = <i64>(intEnd - intStart) - lead + exp;
  if (e64 < -0x7fffffff || e64 > 0x7fffffff) return FALLBACK;
  digitsToken(first, last, neg, <i32>e64);
  return <i64>p;
}

/**
 * digitsToken for an integer of 16 to 18 digits whose value d is exact (no bytes read again): its digits
 * without trailing zeros, mixed as digitsToken does (groups of 9 digits from the first, then the rest).
 */
function longIntToken(d: i64, neg: bool, nd: i32): void {
  let digits = nd;
  while (d % 10 == 0) {
    d /= 10;
    digits--;
  }
  if (digits <= 15) {
    shortTokenI(neg, d, nd);
    return;
  }
  const split: i64 = digits == 16 ? 10000000 : digits == 17 ? 100000000 : 1000000000;
  let h: i32 = SEED_NUMBER_A ^ (neg ? 1 : 0);
  h = mixWord(h, <i32>(d / split));
  h = mixWord(h, <i32>(d % split));
  h = mixWord(h, nd);
  tok = fmix(h ^ digits);
  tokFlags = FLAG_INEXACT;
}

/** Token of 0.D × 10^e, D the digits at [first, last] (a '.' among them skipped; no leading/trailing zeros). */
function digitsToken(first: usize, last: usize, neg: bool, e: i32): void {
  let digits = 0;
  let value: f64 = 0;
  for (let i = first; i <= last; i++) {
    const b = load<u8>(i);
    if (b == 0x2e) continue;
    value = value * 10 + <f64>(b - 0x30);
    digits++;
  }
  if (digits <= 15) {
    shortToken(neg, value, e);
    return;
  }
  let h: i32 = SEED_NUMBER_A ^ (neg ? 1 : 0);
  let v: i32 = 0;
  let k = 0;
  for (let i = first; i <= last; i++) {
    const b = load<u8>(i);
    if (b == 0x2e) continue;
    v = v * 10 + <i32>(b - 0x30);
    if (++k == 9) { h = mixWord(h, v); v = 0; k = 0; }
  }
  if (k != 0) h = mixWord(h, v);
  h = mixWord(h, e);
  tok = fmix(h ^ digits);
  tokFlags = FLAG_INEXACT;
}

// ---- memory: one arena per body. Bump allocation; a region outgrown is abandoned until the next body.
// An instance may serve several bodies one after another (reset() between them): its pages are then already
// mapped, which saves the page faults of a fresh memory, and regions that must start zeroed (tables, counts)
// are cleared where an earlier body used them.
@external("env", "canonicalEqual")
declare function canonicalEqual(rep: i32, ref: i32): i32;

let top: usize = 0;
/** The highest address any body has allocated up to: memory above it was never written (still zero). */
let used: usize = 0;
function alloc(bytes: usize, zeroed: bool): usize {
  if (top == 0) top = (__heap_base + 15) & ~(<usize>15);
  const p = (top + 15) & ~(<usize>15);
  const next = p + bytes;
  if (next < p) unreachable();
  const have = <usize>memory.size() << 16;
  if (next > have) {
    if (memory.grow(<i32>((next - have + 0xffff) >> 16)) < 0) unreachable();
  }
  if (zeroed && p < used) memory.fill(p, 0, (next < used ? next : used) - p);
  if (next > used) used = next;
  top = next;
  return p;
}

// The body: JS writes received bytes at bodyPtr.
let body: usize = 0;
let bodyCap: usize = 0;
let expected: usize = 0;

/** Makes room for `cap` body bytes (keeping the first `kept`); returns where the body starts now. */
export function ensureBody(cap: u32, kept: u32): usize {
  if (<usize>cap <= bodyCap) return body;
  // 16 bytes to spare: a short comparison may load 8 bytes from any body position (see sameBytes).
  const p = alloc(<usize>cap + 16, false);
  if (kept > 0) memory.copy(p, body, <usize>kept);
  body = p;
  bodyCap = <usize>cap;
  return p;
}

/** The body's expected length (Content-Length), used to size the tables once the first row is known. */
export function expect(bytes: u32): void {
  expected = <usize>bytes;
}

// ---- per side rows: span (start, end as u32), id (i32), flags (u8); indexes into the body.
const SIDE = memory.data(64); // per side s at SIDE + s*32: span, id, flags, length, capacity
@inline function sideGet(s: i32, f: i32): usize { return load<u32>(SIDE + <usize>(s * 32 + f * 4)); }
@inline function sideSet(s: i32, f: i32, v: usize): void { store<u32>(SIDE + <usize>(s * 32 + f * 4), <u32>v); }
const F_SPAN = 0;
const F_ID = 1;
const F_FLAGS = 2;
const F_LEN = 3;
const F_CAP = 4;

export function spanPtr(s: i32): usize { return sideGet(s, F_SPAN); }
export function idPtr(s: i32): usize { return sideGet(s, F_ID); }
export function flagsPtr(s: i32): usize { return sideGet(s, F_FLAGS); }
export function rowCount(s: i32): i32 { return <i32>sideGet(s, F_LEN); }

function growSide(s: i32, cap: usize): void {
  const old = sideGet(s, F_CAP);
  if (cap <= old) return;
  const n = sideGet(s, F_LEN);
  const span = alloc(cap << 3, false);
  const id = alloc(cap << 2, false);
  const fl = alloc(cap, false);
  if (n > 0) {
    memory.copy(span, sideGet(s, F_SPAN), n << 3);
    memory.copy(id, sideGet(s, F_ID), n << 2);
    memory.copy(fl, sideGet(s, F_FLAGS), n);
  }
  sideSet(s, F_SPAN, span);
  sideSet(s, F_ID, id);
  sideSet(s, F_FLAGS, fl);
  sideSet(s, F_CAP, cap);
}

@inline function rowStart(s: i32, i: usize): usize { return load<u32>(sideGet(s, F_SPAN) + (i << 3)); }
@inline function rowEnd(s: i32, i: usize): usize { return load<u32>(sideGet(s, F_SPAN) + (i << 3) + 4); }

function pushRow(s: i32, start: usize, end: usize, flags: i32, id: i32): void {
  const n = sideGet(s, F_LEN);
  if (n == sideGet(s, F_CAP)) growSide(s, n < 1024 ? 1024 : n << 1);
  const span = sideGet(s, F_SPAN) + (n << 3);
  store<u32>(span, <u32>start);
  store<u32>(span + 4, <u32>end);
  store<i32>(sideGet(s, F_ID) + (n << 2), id);
  store<u8>(sideGet(s, F_FLAGS) + n, <u8>flags);
  sideSet(s, F_LEN, n + 1);
}

// ---- distinct rows by canonical hash; a hash match counts only once sameRow confirms it.
let slots: usize = 0; // per slot: lane A, id + 1 (0 = empty)
let mask: usize = 0;
let meta: usize = 0; // per distinct: lane B, representative ref
let counts0: usize = 0;
let counts1: usize = 0;
let distinctN: i32 = 0;
let distinctCap: usize = 0;

export function distinct(): i32 { return distinctN; }
export function countsPtr(s: i32): usize { return s == 0 ? counts0 : counts1; }

function growDistinct(cap: usize): void {
  if (cap <= distinctCap) return;
  const m = alloc(cap << 3, false);
  const c0 = alloc(cap << 2, true);
  const c1 = alloc(cap << 2, true);
  const n = <usize>distinctN;
  if (n > 0) {
    memory.copy(m, meta, n << 3);
    memory.copy(c0, counts0, n << 2);
    memory.copy(c1, counts1, n << 2);
  }
  meta = m;
  counts0 = c0;
  counts1 = c1;
  distinctCap = cap;
}

function rehash(size: usize): void {
  if (size <= mask + 1 && slots != 0) return;
  const old = slots;
  const oldSize: usize = slots == 0 ? 0 : mask + 1;
  slots = alloc(size << 3, true);
  mask = size - 1;
  for (let j: usize = 0; j < oldSize; j++) {
    const v = load<i32>(old + (j << 3) + 4);
    if (v == 0) continue;
    const a = load<i32>(old + (j << 3));
    let i = <usize>a & mask;
    while (load<i32>(slots + (i << 3) + 4) != 0) i = (i + 1) & mask;
    store<i32>(slots + (i << 3), a);
    store<i32>(slots + (i << 3) + 4, v);
  }
}

@inline function refStart(ref: i32): usize { return ref >= 0 ? rowStart(0, <usize>ref) : rowStart(1, <usize>~ref); }
@inline function refEnd(ref: i32): usize { return ref >= 0 ? rowEnd(0, <usize>ref) : rowEnd(1, <usize>~ref); }

function equalBytes(a: usize, b: usize, n: usize): bool {
  const end = a + n;
  while (a + 16 <= end) {
    if (v128.any_true(v128.xor(v128.load(a), v128.load(b)))) return false;
    a += 16;
    b += 16;
  }
  if (a + 8 <= end) {
    if (load<u64>(a) != load<u64>(b)) return false;
    a += 8;
    b += 8;
  }
  while (a < end) {
    if (load<u8>(a) != load<u8>(b)) return false;
    a++;
    b++;
  }
  return true;
}

function sameRow(rep: i32, ref: i32): bool {
  const sa = refStart(rep);
  const sb = refStart(ref);
  const n = refEnd(rep) - sa;
  if (n == refEnd(ref) - sb && equalBytes(body + sa, body + sb, n)) return true;
  return canonicalEqual(rep, ref) != 0;
}

function addDistinct(a: i32, b: i32, ref: i32, side: i32): i32 {
  if (slots == 0) rehash(2048);
  let i = <usize>a & mask;
  while (true) {
    const s = load<i32>(slots + (i << 3) + 4);
    if (s == 0) break;
    const id = s - 1;
    if (
      load<i32>(slots + (i << 3)) == a &&
      load<i32>(meta + (<usize>id << 3)) == b &&
      sameRow(load<i32>(meta + (<usize>id << 3) + 4), ref)
    ) {
      const c = (side == 0 ? counts0 : counts1) + (<usize>id << 2);
      store<i32>(c, load<i32>(c) + 1);
      return id;
    }
    i = (i + 1) & mask;
  }
  const id = distinctN++;
  if (<usize>id == distinctCap) growDistinct(distinctCap < 1024 ? 1024 : distinctCap << 1);
  store<i32>(meta + (<usize>id << 3), b);
  store<i32>(meta + (<usize>id << 3) + 4, ref);
  store<i32>((side == 0 ? counts0 : counts1) + (<usize>id << 2), 1);
  store<i32>(slots + (i << 3), a);
  store<i32>(slots + (i << 3) + 4, id + 1);
  if (<usize>distinctN * 2 > mask) rehash((mask + 1) << 1);
  return id;
}

// ---- repeats: rows remembered by a hash of their first bytes, so a later row repeating one byte for byte
// is recognised by one comparison (see repeat-index.ts for the design).
let rslots: usize = 0; // per slot: prefix hash, start, length | inexact << 30 (0 = empty), id
let rmask: usize = 0;
let rstored: usize = 0;
let tries: i32 = 0;
let hits: i32 = 0;
let pausedUntil: i32 = 0;
const PREFIX_WORDS = 16;
const PREFIX_NEEDS: usize = PREFIX_WORDS * 4;

export function newSide(): void {
  pipeMissed = false;
  pausedUntil = 0;
  tries = 0;
  hits = 0;
}

function prefixHash(p: usize): i32 {
  // Eight bytes at a time, up to the word holding the first `}` (a short row's end).
  let h: u64 = 0x5bd1e995;
  for (let i = 0; i < PREFIX_WORDS / 2; i++, p += 8) {
    const x = load<u64>(p);
    h = rotl<u64>((h ^ x) * 0x9e3779b97f4a7c15, 29);
    const y = x ^ 0x7d7d7d7d7d7d7d7d;
    if ((y - 0x0101010101010101) & ~y & 0x8080808080808080) break;
  }
  return fmix(<i32>(h ^ (h >> 32)));
}

function rput(hash: i32, start: usize, lenFlag: i32, id: i32): bool {
  let i = (<usize>hash & rmask) << 4;
  let empty = false;
  for (let k: usize = 0; k < 4; k++) {
    const j = ((<usize>hash + k) & rmask) << 4;
    const l = load<i32>(rslots + j + 8);
    if (l == 0 || load<i32>(rslots + j) == hash) {
      empty = l == 0;
      i = j;
      break;
    }
  }
  store<i32>(rslots + i, hash);
  store<u32>(rslots + i + 4, <u32>start);
  store<i32>(rslots + i + 8, lenFlag);
  store<i32>(rslots + i + 12, id);
  return empty;
}

function rgrow(size: usize): void {
  if (size <= rmask + 1 && rslots != 0) return;
  const old = rslots;
  const oldSize: usize = rslots == 0 ? 0 : rmask + 1;
  rslots = alloc(size << 4, true);
  rmask = size - 1;
  rstored = 0;
  for (let j: usize = 0; j < oldSize; j++) {
    const o = old + (j << 4);
    const l = load<i32>(o + 8);
    if (l != 0 && rput(load<i32>(o), load<u32>(o + 4), l, load<i32>(o + 12))) rstored++;
  }
}

function remember(hash: i32, start: usize, length: usize, inexact: i32, id: i32): void {
  if (length >= 0x40000000) return;
  if (rslots == 0) rgrow(65536);
  if (rput(hash, start, <i32>length | (inexact << 30), id) && ++rstored * 2 > rmask) rgrow((rmask + 1) << 1);
}

/** Sizes every table for about `rows` rows per side (from the body's expected length), once. */
function presize(rowBytes: usize): void {
  if (expected == 0 || rowBytes == 0) return;
  let rows = expected / (rowBytes + 1) / 2;
  rows += rows >> 3; // the first row may be shorter than most: side arrays are cheap where never written
  if (rows < 1024) return;
  if (rows > 0x4000000) rows = 0x4000000;
  growSide(0, rows);
  growSide(1, rows);
  growDistinct(rows);
  // Hash tables at a load of at most about 1/2 (they grow past that).
  let size: usize = 2048;
  while (size < rows + (rows >> 1)) size <<= 1;
  rehash(size);
  rgrow(size);
}

/** Records a fully scanned row (hash lanes a, b) on `side`; returns its distinct id. */
function record(side: i32, p: usize, q: usize, a: i32, b: i32, flags: i32, prefix: i32, hashable: bool): i32 {
  const index = <i32>sideGet(side, F_LEN);
  if (side == 0 && index == 0) presize(q - p);
  pushRow(side, p, q, flags, 0);
  const id = addDistinct(a, b, side == 0 ? index : ~index, side);
  store<i32>(sideGet(side, F_ID) + (<usize>index << 2), id);
  if (hashable) remember(prefix, p, q - p, flags, id);
  return id;
}

/** A row the JS scanner handled (nested values, rare escapes, errors it reported): records it. */
export function addScanned(side: i32, p: u32, q: u32, end: u32, a: i32, b: i32, flags: i32): i32 {
  const hashable = <usize>p + PREFIX_NEEDS <= <usize>end;
  const prefix = hashable ? prefixHash(body + <usize>p) : 0;
  return record(side, <usize>p, <usize>q, a, b, flags, prefix, hashable);
}
// ---- rows
const MAX_KEYS = 64;
const layoutStart = memory.data(MAX_KEYS * 4);
const layoutLen = memory.data(MAX_KEYS * 4);
const layoutTok = memory.data(MAX_KEYS * 4);
const nextStart = memory.data(MAX_KEYS * 4);
const nextLen = memory.data(MAX_KEYS * 4);
const nextTok = memory.data(MAX_KEYS * 4);
let layoutCount: i32 = 0;


@inline function skipWs(p: usize, end: usize): usize {
  while (p < end && isWs(<u32>load<u8>(p))) p++;
  return p;
}

/** Whether n bytes at a and b (both in the body) are equal; may load up to 7 bytes beyond them. */
@inline function sameBytes(a: usize, b: usize, n: usize): bool {
  if (n <= 8) return n == 0 || ((load<u64>(a) ^ load<u64>(b)) & (<u64>-1 >> ((8 - <u64>n) << 3))) == 0;
  if (n <= 16) {
    return (
      ((load<u64>(a) ^ load<u64>(b)) | ((load<u64>(a + 8) ^ load<u64>(b + 8)) & (<u64>-1 >> ((16 - <u64>n) << 3)))) == 0
    );
  }
  return sameBytesLong(a, b, n);
}

function sameBytesLong(a: usize, b: usize, n: usize): bool {
  while (n >= 8) {
    if (load<u64>(a) != load<u64>(b)) return false;
    a += 8;
    b += 8;
    n -= 8;
  }
  for (let i: usize = 0; i < n; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
  return true;
}

/** Scans one flat row object at p ('{'). Returns end, NEED_MORE or FALLBACK. Offsets are absolute. */
function scanRowAbs(start: usize, end: usize): i64 {
  let p = start + 1;
  let accA: i32 = 0;
  let accB: i32 = 0;
  let n: i32 = 0;
  let flags: i32 = 0;
  let same = true;
  p = skipWs(p, end);
  if (p >= end) return NEED_MORE;
  let c = <u32>load<u8>(p);
  if (c == 0x7d) { finish(0, 0, 0, 0); return <i64>(p + 1); }
  while (true) {
    if (c != 0x22) return FALLBACK;
    if (n >= MAX_KEYS) return FALLBACK;
    let k: i32 = 0;
    let len: i32 = -1;
    let keyDone = false;
    if (same && n < layoutCount) {
      len = load<i32>(layoutLen + (<usize>n << 2));
      const ls = <usize>load<i32>(layoutStart + (<usize>n << 2));
      k = load<i32>(layoutTok + (<usize>n << 2));
      if (p + 3 + <usize>len < end && sameBytes(p, ls - 1, <usize>len + 3) && load<u8>(p + 2 + <usize>len) == 0x3a) {
        // The common case: `"key":` exactly as in the previous row (its key, quotes and the byte after).
        p += <usize>len + 3;
        keyDone = true;
      } else if (!(p + 1 + <usize>len < end && load<u8>(p + 1 + <usize>len) == 0x22 && sameBytes(p + 1, ls, <usize>len))) {
        len = -1;
      }
    }
    if (!keyDone) {
      if (len < 0) {
        if (same) {
          for (let i = 0; i < n; i++) {
            store<i32>(nextStart + (<usize>i << 2), load<i32>(layoutStart + (<usize>i << 2)));
            store<i32>(nextLen + (<usize>i << 2), load<i32>(layoutLen + (<usize>i << 2)));
            store<i32>(nextTok + (<usize>i << 2), load<i32>(layoutTok + (<usize>i << 2)));
          }
        }
        same = false;
        const q = scanString(p + 1, end);
        if (q < 0) return q;
        k = tok;
        len = <i32>(<usize>q - p - 2);
      }
      if (!same) {
        store<i32>(nextStart + (<usize>n << 2), <i32>(p + 1));
        store<i32>(nextLen + (<usize>n << 2), len);
        store<i32>(nextTok + (<usize>n << 2), k);
      }
      p += <usize>len + 2;
      p = skipWs(p, end);
      if (p >= end) return NEED_MORE;
      if (load<u8>(p) != 0x3a) return FALLBACK;
      p++;
    }
    if (p >= end) return NEED_MORE;
    c = <u32>load<u8>(p);
    if (isWs(c)) {
      p = skipWs(p, end);
      if (p >= end) return NEED_MORE;
      c = <u32>load<u8>(p);
    }
    let t: i32;
    if (c == 0x22) {
      const q = scanString(p + 1, end);
      if (q < 0) return q;
      t = tok;
      p = <usize>q;
    } else if (c == 0x2d || isDigit(c)) {
      const q = scanNumber(p, end);
      if (q < 0) return q;
      t = tok;
      flags |= tokFlags;
      p = <usize>q;
    } else if (c == 0x74 || c == 0x6e || c == 0x66) {
      if (p + 5 > end) return NEED_MORE;
      const w = load<u32>(p);
      if (w == 0x65757274) { t = TRUE_A; p += 4; }
      else if (w == 0x6c6c756e) { t = NULL_A; p += 4; }
      else if (w == 0x736c6166 && load<u8>(p + 4) == 0x65) { t = FALSE_A; p += 5; }
      else return FALLBACK;
    } else return FALLBACK; // nested values and errors: the JS scanner
    const m = member(k, t);
    accA += m;
    accB += spread(m);
    n++;
    if (p >= end) return NEED_MORE;
    c = <u32>load<u8>(p);
    if (isWs(c)) {
      p = skipWs(p, end);
      if (p >= end) return NEED_MORE;
      c = <u32>load<u8>(p);
    }
    if (c == 0x2c) {
      if (++p >= end) return NEED_MORE;
      c = <u32>load<u8>(p);
      if (isWs(c)) {
        p = skipWs(p, end);
        if (p >= end) return NEED_MORE;
        c = <u32>load<u8>(p);
      }
      continue;
    }
    if (c != 0x7d) return FALLBACK;
    break;
  }
  if (!same || n != layoutCount) {
    if (same) {
      for (let i = 0; i < n; i++) {
        store<i32>(nextStart + (<usize>i << 2), load<i32>(layoutStart + (<usize>i << 2)));
        store<i32>(nextLen + (<usize>i << 2), load<i32>(layoutLen + (<usize>i << 2)));
        store<i32>(nextTok + (<usize>i << 2), load<i32>(layoutTok + (<usize>i << 2)));
      }
    }
    // Duplicate keys: any two equal key tokens → let JS decide (it throws or it was a collision).
    for (let i = 1; i < n; i++) {
      const ti = load<i32>(nextTok + (<usize>i << 2));
      for (let j = 0; j < i; j++) if (load<i32>(nextTok + (<usize>j << 2)) == ti) return FALLBACK;
    }
    memory.copy(layoutStart, nextStart, <usize>n << 2);
    memory.copy(layoutLen, nextLen, <usize>n << 2);
    memory.copy(layoutTok, nextTok, <usize>n << 2);
    layoutCount = n;
  }
  finish(n, accA, accB, flags);
  return <i64>(p + 1);
}

@inline function finish(n: i32, a: i32, b: i32, flags: i32): void {
  outA = fmix(mixWord(SEED_OBJECT_A ^ n, a));
  outB = fmix(mixWordB(SEED_OBJECT_B ^ n, b));
  outFlags = flags;
}


// ---- the rows of one side: `row , row , …` up to anything else, which the JS reader handles.
let exitReason: i32 = 0;
let exitAfterRow: i32 = 0;
/** Why rows() stopped: 0 at a byte for the JS reader (or the end of the bytes), 1 row incomplete, 2 row for the JS scanner. */
export function reason(): i32 { return exitReason; }
/** Whether rows() stopped after a row (expecting `,` or `]`) rather than expecting a row. */
export function afterRow(): i32 { return exitAfterRow; }

// Rows are handled in batches so that their table accesses, each a likely cache miss, overlap rather than
// follow one another: first each row is scanned (or matched to a remembered row by its prefix), then every
// table slot and remembered row the batch will touch is loaded once (the loads are independent, so the
// processor has them in flight together), then the batch is committed in order.
const BATCH = 16;
const K_SCANNED = 0;
const K_REPEAT = 1;
// Per batch entry, 8 × i32: kind, start, end, lane A | repeat slot, lane B, flags, prefix, hashable
const batch = memory.data(BATCH * 32);
@inline function bGet(i: i32, f: i32): i32 { return load<i32>(batch + <usize>(i * 32 + f * 4)); }
@inline function bSet(i: i32, f: i32, v: i32): void { store<i32>(batch + <usize>(i * 32 + f * 4), v); }
let sink: i32 = 0;
/** Keeps the prefetching loads observable (never read by JS). */
export function prefetched(): i32 { return sink; }
/** A row where a remembered row's bytes did not match: scan it rather than look it up again. */
let scanAt: usize = <usize>-1;

/** Looks up the remembered row for `prefix`: the slot address, or 0. */
function rlookup(prefix: i32): usize {
  if (rslots == 0) return 0;
  for (let k: usize = 0; k < 4; k++) {
    const i = rslots + (((<usize>prefix + k) & rmask) << 4);
    const l = load<i32>(i + 8);
    if (l == 0) return 0;
    if (load<i32>(i) == prefix) return i;
  }
  return 0;
}

function outcome(index: i32, hit: bool): void {
  tries++;
  if (hit) hits++;
  if (tries == 256) {
    if (hits < 64) pausedUntil = index + 4096;
    tries = 0;
    hits = 0;
  }
}

/** Index of the first `}` at or after p, or e. */
function findBrace(p: usize, e: usize): usize {
  const brace = i8x16.splat(0x7d);
  while (p + 16 <= e) {
    const m = i8x16.bitmask(i8x16.eq(v128.load(p), brace));
    if (m != 0) return p + <usize>ctz<i32>(m);
    p += 16;
  }
  while (p < e && load<u8>(p) != 0x7d) p++;
  return p;
}

/** Whether the last pipelined attempt found no repeat at its first row. */
let pipeMissed = false;
/** The prefix hash of the row at pipePrefixAt, kept for the ordinary path when the attempt finds nothing. */
let pipePrefixAt: usize = <usize>-1;
let pipePrefix: i32 = 0;

// Candidate rows for the pipelined lookup: start, end, prefix.
const cand = memory.data(BATCH * 12);
let pipelinedEnd: usize = 0;

/**
 * Repeats of remembered rows, looked up several at a time: each row's end is first guessed from the first
 * `}` that is followed by `,` or `]` (a flat row's end unless a string holds one), so the next row's start
 * need not wait for the lookup; then the lookups' slots are loaded together; a guess is only used when the
 * remembered row has exactly that length (its bytes are compared at commit). Appends K_REPEAT entries from
 * batch index n0; returns how many (0: the row at pos goes the ordinary way), leaving the end in pipelinedEnd.
 */
function pipelinedRepeats(pos: usize, e: usize, n0: i32): i32 {
  let k = 0;
  let p = pos;
  // After an attempt whose first row was no repeat (rows not seen before), only one row is tried: the
  // others' ends and prefixes would be computed for nothing.
  const width = pipeMissed ? 1 : BATCH;
  while (n0 + k < BATCH && k < width) {
    if (k > 0) {
      while (p < e && isWs(<u32>load<u8>(p + body))) p++;
      if (p >= e || load<u8>(body + p) != 0x2c) break;
      p++;
      while (p < e && isWs(<u32>load<u8>(p + body))) p++;
    }
    if (p + PREFIX_NEEDS > e || load<u8>(body + p) != 0x7b) break;
    const q = findBrace(body + p + 1, body + e) - body;
    let r = q + 1;
    while (r < e && isWs(<u32>load<u8>(body + r))) r++;
    if (r >= e) break;
    const c = load<u8>(body + r);
    if (c != 0x2c && c != 0x5d) break;
    const at = cand + <usize>(k * 12);
    store<u32>(at, <u32>p);
    store<u32>(at + 4, <u32>(q + 1));
    const prefix = prefixHash(body + p);
    store<i32>(at + 8, prefix);
    if (k == 0) {
      pipePrefixAt = p;
      pipePrefix = prefix;
    }
    k++;
    if (c == 0x5d) break;
    p = r;
  }
  let x: i32 = 0;
  for (let i = 0; i < k; i++) x ^= load<i32>(rslots + ((<usize>load<i32>(cand + <usize>(i * 12) + 8) & rmask) << 4));
  sink ^= x;
  let m = 0;
  for (let i = 0; i < k; i++) {
    const at = cand + <usize>(i * 12);
    const start = <usize>load<u32>(at);
    const end = <usize>load<u32>(at + 4);
    const slot = rlookup(load<i32>(at + 8));
    if (slot == 0 || start + <usize>(load<i32>(slot + 8) & 0x3fffffff) != end) break;
    bSet(n0 + m, 0, K_REPEAT);
    bSet(n0 + m, 1, <i32>start);
    bSet(n0 + m, 2, <i32>end);
    bSet(n0 + m, 3, <i32>slot);
    m++;
    pipelinedEnd = end;
  }
  if (k > 0) pipeMissed = m == 0;
  return m;
}

/** Commits the batch's n rows in order; returns the start of the first row that must be scanned again, or -1. */
function flush(n: i32, side: i32): i64 {
  // Prefetch: independent loads of everything the commits below will touch.
  let x: i32 = 0;
  for (let i = 0; i < n; i++) {
    if (bGet(i, 0) == K_REPEAT) {
      const slot = <usize>bGet(i, 3);
      // Every cache line of the remembered row, not just its first: the comparison reads them all.
      const from = body + <usize>load<u32>(slot + 4);
      const last = from + <usize>(bGet(i, 2) - bGet(i, 1)) - 1;
      for (let at = from; at < last; at += 64) x ^= load<u8>(at);
      x ^= load<u8>(last);
      x ^= load<i32>((side == 0 ? counts0 : counts1) + (<usize>load<i32>(slot + 12) << 2));
    } else {
      x ^= load<i32>(slots + ((<usize>bGet(i, 3) & mask) << 3));
      if (bGet(i, 7) != 0 && rslots != 0) x ^= load<i32>(rslots + ((<usize>bGet(i, 6) & rmask) << 4));
    }
  }
  sink ^= x;
  for (let i = 0; i < n; i++) {
    const p = <usize>bGet(i, 1);
    const q = <usize>bGet(i, 2);
    const index = <i32>sideGet(side, F_LEN);
    if (bGet(i, 0) == K_REPEAT) {
      const slot = <usize>bGet(i, 3);
      const len = q - p;
      const same = equalBytes(body + <usize>load<u32>(slot + 4), body + p, len);
      outcome(index, same);
      if (!same) {
        scanAt = p;
        return <i64>p;
      }
      const id = load<i32>(slot + 12);
      // A repeat of a row outside the compacted region points at that row's bytes, so its own can go.
      const from = <usize>load<u32>(slot + 4);
      if (side == secondSide && from < regionStart) pushRow(side, from, from + (q - p), load<i32>(slot + 8) >>> 30, id);
      else pushRow(side, p, q, load<i32>(slot + 8) >>> 30, id);
      const c = (side == 0 ? counts0 : counts1) + (<usize>id << 2);
      store<i32>(c, load<i32>(c) + 1);
    } else {
      record(side, p, q, bGet(i, 3), bGet(i, 4), bGet(i, 5), bGet(i, 6), bGet(i, 7) != 0);
    }
  }
  return -1;
}

/** Scans rows of `side` from p (after a row when `after`), stopping at anything but `{`/`,` (see reason()). */
export function rows(p: u32, end: u32, side: i32, after: i32): u32 {
  let pos = <usize>p;
  const e = <usize>end;
  let a = after != 0;
  exitReason = 0;
  pipePrefixAt = <usize>-1;
  while (true) {
    // Collect a batch.
    let n = 0;
    let stop = false;
    const base = <i32>sideGet(side, F_LEN);
    while (n < BATCH) {
      while (pos < e && isWs(<u32>load<u8>(body + pos))) pos++;
      if (pos >= e) {
        stop = true;
        break;
      }
      const c = load<u8>(body + pos);
      if (a) {
        if (c != 0x2c) {
          stop = true;
          break;
        }
        pos++;
        a = false;
        continue;
      }
      if (c != 0x7b) {
        stop = true;
        break;
      }
      const index = base + n;
      const hashable = pos + PREFIX_NEEDS <= e;
      if (hashable && index >= pausedUntil && pos != scanAt && rslots != 0) {
        const m = pipelinedRepeats(pos, e, n);
        if (m > 0) {
          n += m;
          pos = pipelinedEnd;
          a = true;
          continue;
        }
      }
      let prefix: i32 = 0;
      if (hashable) {
        prefix = pos == pipePrefixAt ? pipePrefix : prefixHash(body + pos);
        if (index >= pausedUntil && pos != scanAt) {
          const slot = rlookup(prefix);
          const len: usize = slot == 0 ? 0 : <usize>(load<i32>(slot + 8) & 0x3fffffff);
          if (slot != 0 && pos + len <= e) {
            bSet(n, 0, K_REPEAT);
            bSet(n, 1, <i32>pos);
            bSet(n, 2, <i32>(pos + len));
            bSet(n, 3, <i32>slot);
            n++;
            pos += len;
            a = true;
            continue;
          }
          outcome(index, false);
        }
      }
      const r = scanRowAbs(body + pos, body + e);
      if (r < 0) {
        exitReason = r == NEED_MORE ? 1 : 2;
        stop = true;
        break;
      }
      const q = <usize>r - body;
      bSet(n, 0, K_SCANNED);
      bSet(n, 1, <i32>pos);
      bSet(n, 2, <i32>q);
      bSet(n, 3, outA);
      bSet(n, 4, outB);
      bSet(n, 5, outFlags);
      bSet(n, 6, prefix);
      bSet(n, 7, hashable ? 1 : 0);
      n++;
      pos = q;
      a = true;
    }
    const cut = flush(n, side);
    if (cut >= 0) {
      // A row matched a remembered prefix but not its bytes: rows after it were placed by its length.
      pos = <usize>cut;
      a = false;
      exitReason = 0;
      continue;
    }
    if (stop) break;
  }
  exitAfterRow = a ? 1 : 0;
  return <u32>pos;
}

// ---- for tests: one row scanned alone, so its hash can be checked against the JS scanner's.
/** Scans the row at p (body index); returns the index after it, -1 (incomplete) or -2 (left to JS). */
export function scanOne(p: u32, end: u32): i32 {
  const r = scanRowAbs(body + <usize>p, body + <usize>end);
  return r < 0 ? <i32>r : <i32>(<usize>r - body);
}
/** The last row's hash lanes and flags: 0 lane A, 1 lane B, 2 flags. */
export function lastRow(i: i32): i32 {
  return i == 0 ? outA : i == 1 ? outB : outFlags;
}

// ---- after the scan: per side, the rows beyond the matched count of their distinct row.
let leftPtr: usize = 0;
/**
 * Writes to leftovers() the indexes of `side`'s rows that have no counterpart: the trailing surplus
 * occurrences of each distinct row (beyond min(count original, count rewritten)); returns how many.
 */
export function exactLeftovers(side: i32): i32 {
  const n = sideGet(side, F_LEN);
  const ids = sideGet(side, F_ID);
  const seen = alloc(<usize>distinctN << 2, true);
  const out = alloc(n << 2, false);
  let k: usize = 0;
  for (let i: usize = 0; i < n; i++) {
    const id = <usize>load<i32>(ids + (i << 2));
    const s = seen + (id << 2);
    const c = load<i32>(s);
    store<i32>(s, c + 1);
    const a = load<i32>(counts0 + (id << 2));
    const b = load<i32>(counts1 + (id << 2));
    if (c >= (a < b ? a : b)) store<u32>(out + (k++ << 2), <u32>i);
  }
  leftPtr = out;
  return <i32>k;
}
export function leftovers(): usize {
  return leftPtr;
}

// ---- compaction of the second side while it streams in: its rows that repeat a row of the first side need
// no bytes of their own (their span points at the first side's row), so only the other rows are kept,
// moved down to `cursor`, and the bytes not yet processed follow them. The body then holds about the first
// side plus what differs, rather than both sides.
let secondSide: i32 = -1;
let regionStart: usize = <usize>-1;
let cursor: usize = 0;
let settledRows: usize = 0;

/** The second side's rows start at `at` (just after its `[`): compact them from now on. */
export function beginCompaction(side: i32, at: u32): void {
  secondSide = side;
  regionStart = <usize>at;
  cursor = <usize>at;
  settledRows = sideGet(side, F_LEN);
}

/**
 * Moves the second side's kept rows (scanned ones) down to the cursor, updating their spans and remembered
 * entries, then the unprocessed bytes [pos, len) after them. Returns how far positions from pos moved down.
 */
export function compact(pos: u32, len: u32): u32 {
  if (secondSide < 0) return 0;
  const s = secondSide;
  const n = sideGet(s, F_LEN);
  for (let i = settledRows; i < n; i++) {
    const sp = sideGet(s, F_SPAN) + (i << 3);
    const start = <usize>load<u32>(sp);
    const end = <usize>load<u32>(sp + 4);
    if (start < regionStart) continue;
    if (start != cursor) {
      // Its remembered entry, if any (same prefix, same start), follows it.
      if (rslots != 0 && start + PREFIX_NEEDS <= <usize>len) {
        const prefix = prefixHash(body + start);
        for (let k: usize = 0; k < 4; k++) {
          const j = rslots + (((<usize>prefix + k) & rmask) << 4);
          if (load<i32>(j + 8) == 0) break;
          if (load<i32>(j) == prefix && <usize>load<u32>(j + 4) == start) {
            store<u32>(j + 4, <u32>cursor);
            break;
          }
        }
      }
      memory.copy(body + cursor, body + start, end - start);
      store<u32>(sp, <u32>cursor);
      store<u32>(sp + 4, <u32>(cursor + end - start));
    }
    cursor += end - start;
  }
  settledRows = n;
  const p = <usize>pos;
  if (p <= cursor) return 0;
  memory.copy(body + cursor, body + p, <usize>len - p);
  // Positions of the previous row's keys and of a failed repeat no longer hold what they did.
  layoutCount = 0;
  scanAt = <usize>-1;
  return <u32>(p - cursor);
}

/** Makes the instance ready for another body: every table empty, the arena reused from its start. */
export function reset(): void {
  secondSide = -1;
  regionStart = <usize>-1;
  cursor = 0;
  settledRows = 0;
  top = 0;
  body = 0;
  bodyCap = 0;
  expected = 0;
  memory.fill(SIDE, 0, 64);
  slots = 0;
  mask = 0;
  meta = 0;
  counts0 = 0;
  counts1 = 0;
  distinctN = 0;
  distinctCap = 0;
  rslots = 0;
  rmask = 0;
  rstored = 0;
  tries = 0;
  hits = 0;
  pausedUntil = 0;
  layoutCount = 0;
  scanAt = <usize>-1;
  exitReason = 0;
  exitAfterRow = 0;
  pipelinedEnd = 0;
  pipeMissed = false;
  pipePrefixAt = <usize>-1;
  leftPtr = 0;
}
