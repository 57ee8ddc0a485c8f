/**
 * Hash mixing for the canonical row hash. Scalars hash to one 32-bit token; containers keep two lanes, so a
 * row hash has 64 bits. Equality is never decided by hashes alone: every
 * hash match is confirmed on the row bytes or their canonical text (see body-reader.ts `sameRow`), so the hash
 * quality only affects speed (probe lengths), never correctness.
 */

/** Token produced by the scalar scan functions: [token, unused, flags]. Shared to avoid allocating per token. */
export const TOKEN = new Int32Array(3);

/** Flag: the token holds a number a JS double cannot represent exactly (decode it from its source text). */
export const FLAG_INEXACT = 1;

/** Returned by scan functions when the value continues past the bytes received so far. */
export const NEED_MORE = -1;

// Distinct seeds per token type make `"1"`, `1`, `true` and `[1]` hash apart before any content is mixed.
export const SEED_STRING_A = 0x2f1b7c43;
export const SEED_NUMBER_A = 0x3c6ef372;
export const SEED_SHORT_A = 0x6a09e667;
export const SEED_ARRAY_A = 0x510e527f;
export const SEED_ARRAY_B = 0x5be0cd19;
export const SEED_OBJECT_A = 0x243f6a88;
export const SEED_OBJECT_B = 0x13198a2e;

/** One word into a running hash: multiply, then rotate so high (well-mixed) bits feed the low ones. */
export function mixWord(h: number, x: number): number {
  h = Math.imul(h ^ x, 0x9e3779b1);
  return (h << 13) | (h >>> 19);
}

/** Second lane for containers' running hashes (different constants from mixWord). */
export function mixWordB(h: number, x: number): number {
  h = Math.imul(h + x, 0x85ebca77);
  return (h << 17) | (h >>> 15);
}

/** Final avalanche (murmur3 fmix32) so that every input bit affects every output bit. */
export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Hash of one object member from its key token and value token. An object's lanes are the sums of
 * `member` and of `spread(member)` over its members: order-independent, and unambiguous because keys are
 * unique. The second sum separates member multisets whose first sums happen to collide.
 */
export function member(k: number, v: number): number {
  const m = Math.imul(k ^ Math.imul(v, 0xcc9e2d51), 0x1b873593);
  return m ^ (m >>> 16);
}

export function spread(m: number): number {
  return Math.imul(m ^ (m >>> 15), 0x2c1b3c6d);
}

/** A container's two lanes folded into the one token it contributes to its parent. */
export function fold(a: number, b: number): number {
  return fmix(a ^ Math.imul(b, 0x9e3779b1));
}

// Literal tokens are constants: they have no content.
export const TRUE_A = fmix(0x74727565);
export const FALSE_A = fmix(0x66616c73);
export const NULL_A = fmix(0x6e756c6c);
export const ZERO_A = fmix(0x7a65726f);
