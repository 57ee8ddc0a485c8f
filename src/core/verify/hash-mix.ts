/**
 * Two independent 32-bit hash lanes (murmur3-style rounds with different constants), giving 64 bits per
 * token. Equality is never decided by these hashes alone: every hash match is confirmed on the row bytes or
 * their canonical text (see row-table.ts), so the hash width only affects speed, not correctness.
 */

/** Token hash produced by the scan functions: [laneA, laneB, flags]. Shared to avoid allocating per token. */
export const TOKEN = new Int32Array(3);

/** Flag: the token holds a number a JS double cannot represent exactly (decode it from its source text). */
export const FLAG_INEXACT = 1;

/** Returned by scan functions when the value continues past the bytes received so far. */
export const NEED_MORE = -1;

// Distinct seeds per token type make `"1"`, `1`, `true` and `[1]` hash apart before any content is mixed.
export const SEED_STRING_A = 0x2f1b7c43;
export const SEED_STRING_B = 0x6a09e667;
export const SEED_NUMBER_A = 0x3c6ef372;
export const SEED_NUMBER_B = 0x1f83d9ab;
export const SEED_ARRAY_A = 0x510e527f;
export const SEED_ARRAY_B = 0x5be0cd19;
export const SEED_OBJECT_A = 0x243f6a88;
export const SEED_OBJECT_B = 0x13198a2e;
export const SEED_MEMBER_A = 0x0a409382;
export const SEED_MEMBER_B = 0x299f31d0;

export function mixA(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

export function mixB(h: number, k: number): number {
  k = Math.imul(k, 0x85ebca77);
  k = (k << 13) | (k >>> 19);
  k = Math.imul(k, 0xc2b2ae3d);
  h ^= k;
  h = (h << 17) | (h >>> 15);
  return (Math.imul(h, 9) + 0x27d4eb2f) | 0;
}

/** Final avalanche (murmur3 fmix32) so that every input bit affects every output bit. */
export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

// Literal tokens are constants: they have no content.
export const TRUE_A = fmix(0x74727565);
export const TRUE_B = fmix(0x54525545);
export const FALSE_A = fmix(0x66616c73);
export const FALSE_B = fmix(0x46414c53);
export const NULL_A = fmix(0x6e756c6c);
export const NULL_B = fmix(0x4e554c4c);
export const ZERO_A = fmix(0x7a65726f);
export const ZERO_B = fmix(0x5a45524f);
