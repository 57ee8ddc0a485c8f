/**
 * API key format: `sg_` + 32 base62 characters of randomness (≈190 bits) + 6 base62 characters of CRC-32
 * checksum. The checksum lets a typo or a truncated key be refused without a store lookup (and lets secret
 * scanners recognise real keys). Only a hash of the whole key is stored; `displayPrefix` is what lists show.
 *
 * @example formatApiKey(randomBytes(24)) // 'sg_4fT…' (41 characters)
 */
export const KEY_PREFIX = 'sg_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

const crc32 = (s: string): number => {
  let c = 0xffffffff;
  for (let i = 0; i < s.length; i++) c = (CRC_TABLE[(c ^ s.charCodeAt(i)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

const base62 = (n: bigint, width: number): string => {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
};

/** Builds a key from at least 24 random bytes (190 bits are kept). */
export const formatApiKey = (random: Uint8Array): string => {
  if (random.length < 24) throw new RangeError('an API key needs at least 24 random bytes');
  let n = 0n;
  for (const b of random) n = (n << 8n) | BigInt(b);
  const body = base62(n, BODY_LENGTH);
  return `${KEY_PREFIX}${body}${base62(BigInt(crc32(body)), CHECK_LENGTH)}`;
};

/** True when the text has the shape of one of our keys and its checksum matches. */
export const isWellFormedApiKey = (key: string): boolean => {
  if (key.length !== KEY_PREFIX.length + BODY_LENGTH + CHECK_LENGTH || !key.startsWith(KEY_PREFIX))
    return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  const check = key.slice(KEY_PREFIX.length + BODY_LENGTH);
  if (![...body, ...check].every((c) => ALPHABET.includes(c))) return false;
  return base62(BigInt(crc32(body)), CHECK_LENGTH) === check;
};

/** The part shown in lists: enough to recognise a key, far too little to use it. */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX.length + 6);
