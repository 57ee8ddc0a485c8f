import { GatewayError } from '../errors.ts';
import { FALSE_A, fmix, fold, member, mixWord, mixWordB, NEED_MORE, NULL_A, spread } from './hash-mix.ts';
import { SEED_OBJECT_A, SEED_OBJECT_B, TOKEN, TRUE_A } from './hash-mix.ts';
import { scanNumber } from './scan-number.ts';
import { dataView, malformed, scanString } from './scan-string.ts';
import { scanValue } from './scanner.ts';

const LE_TRUE = 0x65757274; // "true" read as a little-endian int32
const LE_NULL = 0x6c6c756e; // "null"
const LE_FALS = 0x736c6166; // "fals"

/**
 * The keys of the previous row (byte spans and tokens). Rows of one result set almost always repeat the same
 * keys in the same order; a key whose raw bytes equal the previous row's key at the same position reuses its
 * token, and a row whose whole key sequence repeats needs no duplicate-key check (the previous one passed).
 */
export class RowLayout {
  count = 0;
  start = new Int32Array(64);
  len = new Int32Array(64);
  token = new Int32Array(64);
  // The row being scanned (swapped with the above when its layout differs).
  private nextStart = new Int32Array(64);
  private nextLen = new Int32Array(64);
  private nextToken = new Int32Array(64);

  record(i: number, start: number, len: number, token: number): void {
    if (i === this.nextStart.length) {
      const grow = (a: Int32Array): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.nextStart = grow(this.nextStart);
      this.nextLen = grow(this.nextLen);
      this.nextToken = grow(this.nextToken);
    }
    this.nextStart[i] = start;
    this.nextLen[i] = len;
    this.nextToken[i] = token;
  }

  /** The row being scanned starts with the first `n` keys of the layout. */
  copyPrefix(n: number): void {
    for (let i = 0; i < n; i++) this.record(i, this.start[i]!, this.len[i]!, this.token[i]!);
  }

  /** Makes the row just scanned the reference layout. */
  adopt(count: number): void {
    [this.start, this.nextStart] = [this.nextStart, this.start];
    [this.len, this.nextLen] = [this.nextLen, this.len];
    [this.token, this.nextToken] = [this.nextToken, this.token];
    this.count = count;
  }

  /** Rejects a key named twice in the row just scanned (see scanner.ts for why duplicates are bad input). */
  checkUnique(buf: Uint8Array, count: number): void {
    const text = (i: number): string =>
      JSON.parse(
        new TextDecoder().decode(
          buf.subarray(this.nextStart[i]! - 1, this.nextStart[i]! + this.nextLen[i]! + 1),
        ),
      ) as string;
    const seen = new Map<number, number[]>();
    for (let i = 0; i < count; i++) {
      const h = this.nextToken[i]!;
      const same = seen.get(h);
      if (same === undefined) {
        seen.set(h, [i]);
        continue;
      }
      for (const j of same) {
        if (text(i) === text(j)) {
          throw new GatewayError('invalid-verify-input', `duplicate key ${JSON.stringify(text(i))}`, {
            offset: this.nextStart[i]! - 1,
          });
        }
      }
      same.push(i);
    }
  }
}

const sameBytes = (buf: Uint8Array, a: number, b: number, n: number): boolean => {
  for (let i = 0; i < n; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
};

/**
 * Scans one row object starting at `start` (a `{`) and computes its canonical hash, exactly as scanValue
 * would (same token for the same object), but specialised for the flat rows of a result set: members are
 * accumulated in locals, keys are matched against the previous row's layout, and nested values go through
 * the general scanner.
 *
 * @returns index after the row, or NEED_MORE; out = [laneA, laneB, flags]
 */
export function scanRow(
  buf: Uint8Array,
  start: number,
  end: number,
  maxDepth: number,
  out: Int32Array,
  layout: RowLayout,
): number {
  const dv = dataView(buf);
  let p = start + 1;
  let accA = 0;
  let accB = 0;
  let n = 0;
  let flags = 0;
  let sameLayout = true;
  let c = 0;
  while (p < end && (c = buf[p]!) <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) p++;
  if (p >= end) return NEED_MORE;
  if (c === 0x7d) return finish(p + 1, 0, 0, 0, 0, out);
  for (;;) {
    // Key: reuse the previous row's token when the raw bytes repeat at this position.
    if (c !== 0x22) throw malformed('expected a key', p);
    let k = 0;
    let len = -1;
    if (sameLayout && n < layout.count) {
      len = layout.len[n]!;
      if (p + 1 + len < end && buf[p + 1 + len] === 0x22 && sameBytes(buf, p + 1, layout.start[n]!, len)) {
        k = layout.token[n]!;
      } else len = -1;
    }
    if (len < 0) {
      // The layout breaks here: the keys so far equal the layout's, copy them for the duplicate check.
      if (sameLayout) layout.copyPrefix(n);
      sameLayout = false;
      const q = scanString(buf, p + 1, end);
      if (q === NEED_MORE) return NEED_MORE;
      k = TOKEN[0]!;
      len = q - p - 2;
      layout.record(n, p + 1, len, k);
    }
    p += len + 2;
    while (p < end && (c = buf[p]!) <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) p++;
    if (p >= end) return NEED_MORE;
    if (c !== 0x3a) throw malformed('expected :', p);
    p++;
    while (p < end && (c = buf[p]!) <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) p++;
    if (p >= end) return NEED_MORE;
    // Value.
    let t: number;
    if (c === 0x22) {
      const q = scanString(buf, p + 1, end);
      if (q === NEED_MORE) return NEED_MORE;
      t = TOKEN[0]!;
      p = q;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const q = scanNumber(buf, p, end);
      if (q === NEED_MORE) return NEED_MORE;
      t = TOKEN[0]!;
      flags |= TOKEN[2]!;
      p = q;
    } else if (c === 0x74 || c === 0x6e || c === 0x66) {
      if (p + 5 > end) return NEED_MORE;
      const w = dv.getInt32(p, true);
      if (w === LE_TRUE) t = TRUE_A;
      else if (w === LE_NULL) t = NULL_A;
      else if (w === LE_FALS && buf[p + 4] === 0x65) t = FALSE_A;
      else throw malformed('invalid literal', p);
      p += t === FALSE_A ? 5 : 4;
    } else if (c === 0x7b || c === 0x5b) {
      if (maxDepth <= 1) {
        throw new GatewayError('invalid-verify-input', `nesting deeper than ${maxDepth} levels`, {
          offset: p,
        });
      }
      const q = scanValue(buf, p, end, maxDepth - 1, out);
      if (q === NEED_MORE) return NEED_MORE;
      t = fold(out[0]!, out[1]!);
      flags |= out[2]!;
      p = q;
    } else {
      throw malformed('unexpected character', p);
    }
    const m = member(k, t);
    accA = (accA + m) | 0;
    accB = (accB + spread(m)) | 0;
    n++;
    while (p < end && (c = buf[p]!) <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) p++;
    if (p >= end) return NEED_MORE;
    if (c === 0x2c) {
      p++;
      while (p < end && (c = buf[p]!) <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) p++;
      if (p >= end) return NEED_MORE;
      continue;
    }
    if (c !== 0x7d) throw malformed('expected , or }', p);
    break;
  }
  if (!sameLayout || n !== layout.count) {
    if (sameLayout) layout.copyPrefix(n);
    if (n > 1) layout.checkUnique(buf, n);
    layout.adopt(n);
  }
  return finish(p + 1, n, accA, accB, flags, out);
}

function finish(p: number, n: number, accA: number, accB: number, flags: number, out: Int32Array): number {
  out[0] = fmix(mixWord(SEED_OBJECT_A ^ n, accA));
  out[1] = fmix(mixWordB(SEED_OBJECT_B ^ n, accB));
  out[2] = flags;
  return p;
}
