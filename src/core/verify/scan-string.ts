import { GatewayError } from '../errors.ts';
import { fmix, mixWord, NEED_MORE, SEED_STRING_A, TOKEN } from './hash-mix.ts';

let viewOf: Uint8Array | null = null;
let view: DataView = new DataView(new ArrayBuffer(8));

/** A DataView over `buf`, cached: word reads let the hot loop handle four bytes per step. */
export function dataView(buf: Uint8Array): DataView {
  if (buf !== viewOf) {
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    viewOf = buf;
  }
  return view;
}

/**
 * Hashes one JSON string by its canonical content: the UTF-8 bytes of the unescaped text, taken as
 * little-endian 32-bit words from the start of the content (the last one zero-padded) plus the byte length,
 * so `"\u0041"` and `"A"` hash alike. Escaped lone surrogates become their 3-byte generalised-UTF-8 form; raw
 * bytes must be valid UTF-8 (rejected otherwise, because a lenient decoder would map different invalid bytes
 * to the same U+FFFD and make equality depend on the decoder).
 *
 * @param p index just after the opening quote
 * @returns index just after the closing quote, or NEED_MORE; the token is left in TOKEN[0]
 */
export function scanString(buf: Uint8Array, p: number, end: number): number {
  const dv = dataView(buf);
  let h = SEED_STRING_A;
  let w = 0;
  let sh = 0;
  // Canonical length minus raw length so far (escapes shrink or grow the content).
  let delta = 0;
  const start = p;
  for (;;) {
    if (sh === 0) {
      // Four plain bytes at a time: SWAR tests for '"', '\\', a control byte or a non-ASCII byte.
      while (p + 4 <= end) {
        const x = dv.getInt32(p, true);
        const q = x ^ 0x22222222;
        const b = x ^ 0x5c5c5c5c;
        if ((((x - 0x20202020) & ~x) | ((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b) | x) & 0x80808080)
          break;
        h = mixWord(h, x);
        p += 4;
      }
    }
    if (p >= end) return NEED_MORE;
    const c = buf[p]!;
    if (c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c) {
      w |= c << sh;
      sh += 8;
      if (sh === 32) {
        h = mixWord(h, w);
        w = 0;
        sh = 0;
      }
      p++;
      continue;
    }
    if (c === 0x22) break;
    const q = c === 0x5c ? unescapeAt(buf, p, end) : c >= 0x80 ? utf8At(buf, p, end) : -2;
    if (q === -2) throw malformed('control character in string', p);
    if (q === NEED_MORE) return NEED_MORE;
    delta += TMP_LEN - (q - p);
    for (let i = 0; i < TMP_LEN; i++) {
      w |= TMP[i]! << sh;
      sh += 8;
      if (sh === 32) {
        h = mixWord(h, w);
        w = 0;
        sh = 0;
      }
    }
    p = q;
  }
  // The zero-padded last word plus the length keep "a" and "a\u0000" apart.
  if (sh !== 0) h = mixWord(h, w);
  TOKEN[0] = fmix(h ^ (p - start + delta));
  TOKEN[2] = 0;
  return p + 1;
}

const TMP = new Uint8Array(4);
let TMP_LEN = 0;

function hex4(buf: Uint8Array, p: number): number {
  let v = 0;
  for (let i = 0; i < 4; i++) {
    const c = buf[p + i]!;
    const d =
      c >= 0x30 && c <= 0x39
        ? c - 0x30
        : c >= 0x61 && c <= 0x66
          ? c - 0x57
          : c >= 0x41 && c <= 0x46
            ? c - 0x37
            : -1;
    if (d < 0) throw malformed('invalid \\u escape', p);
    v = (v << 4) | d;
  }
  return v;
}

function putCodePoint(cp: number): void {
  if (cp < 0x80) {
    TMP[0] = cp;
    TMP_LEN = 1;
  } else if (cp < 0x800) {
    TMP[0] = 0xc0 | (cp >> 6);
    TMP[1] = 0x80 | (cp & 63);
    TMP_LEN = 2;
  } else if (cp < 0x10000) {
    TMP[0] = 0xe0 | (cp >> 12);
    TMP[1] = 0x80 | ((cp >> 6) & 63);
    TMP[2] = 0x80 | (cp & 63);
    TMP_LEN = 3;
  } else {
    TMP[0] = 0xf0 | (cp >> 18);
    TMP[1] = 0x80 | ((cp >> 12) & 63);
    TMP[2] = 0x80 | ((cp >> 6) & 63);
    TMP[3] = 0x80 | (cp & 63);
    TMP_LEN = 4;
  }
}

/** Decodes the escape at p into TMP; returns the index after it or NEED_MORE. */
function unescapeAt(buf: Uint8Array, p: number, end: number): number {
  if (p + 1 >= end) return NEED_MORE;
  const e = buf[p + 1]!;
  let v: number;
  switch (e) {
    case 0x22:
    case 0x5c:
    case 0x2f:
      v = e;
      break;
    case 0x62:
      v = 8;
      break;
    case 0x66:
      v = 12;
      break;
    case 0x6e:
      v = 10;
      break;
    case 0x72:
      v = 13;
      break;
    case 0x74:
      v = 9;
      break;
    case 0x75: {
      if (p + 6 > end) return NEED_MORE;
      const u = hex4(buf, p + 2);
      if (u >= 0xd800 && u <= 0xdbff) {
        // A high surrogate only combines with a directly following escaped low surrogate (as in JSON.parse).
        if (p + 12 > end) {
          // Wait for more bytes only while a following low-surrogate escape is still possible.
          const n6 = p + 6 < end ? buf[p + 6]! : -1;
          const n7 = p + 7 < end ? buf[p + 7]! : -1;
          if (n6 === -1 || (n6 === 0x5c && (n7 === -1 || n7 === 0x75))) return NEED_MORE;
          putCodePoint(u);
          return p + 6;
        }
        if (buf[p + 6] === 0x5c && buf[p + 7] === 0x75) {
          const l = hex4(buf, p + 8);
          if (l >= 0xdc00 && l <= 0xdfff) {
            putCodePoint(0x10000 + ((u - 0xd800) << 10) + (l - 0xdc00));
            return p + 12;
          }
        }
      }
      putCodePoint(u);
      return p + 6;
    }
    default:
      throw malformed('invalid escape', p);
  }
  TMP[0] = v;
  TMP_LEN = 1;
  return p + 2;
}

const cont = (c: number | undefined): boolean => c !== undefined && (c & 0xc0) === 0x80;

/** Validates the UTF-8 sequence at p and copies it into TMP; returns the index after it or NEED_MORE. */
function utf8At(buf: Uint8Array, p: number, end: number): number {
  const c = buf[p]!;
  const len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (len === 0) throw malformed('invalid UTF-8', p);
  if (p + len > end) return NEED_MORE;
  const c1 = buf[p + 1];
  // Second-byte ranges exclude overlong forms, UTF-16 surrogates and code points above U+10FFFF.
  const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
  const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
  if (c1 === undefined || c1 < lo || c1 > hi) throw malformed('invalid UTF-8', p);
  for (let i = 2; i < len; i++) if (!cont(buf[p + i])) throw malformed('invalid UTF-8', p);
  for (let i = 0; i < len; i++) TMP[i] = buf[p + i]!;
  TMP_LEN = len;
  return p + len;
}

/** Invalid JSON; the byte offset into the body travels in `context.offset`. */
export function malformed(detail: string, offset: number): GatewayError {
  return new GatewayError('malformed-json', detail, { offset });
}

export const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** First bytes of a JSON value other than an object: such a row is well-formed but not a row object. */
export const isValueStart = (c: number): boolean =>
  c === 0x5b ||
  c === 0x22 ||
  c === 0x2d ||
  (c >= 0x30 && c <= 0x39) ||
  c === 0x74 ||
  c === 0x66 ||
  c === 0x6e;
