import { GatewayError } from '../errors.ts';
import {
  FALSE_A,
  fmix,
  fold,
  member,
  mixWord,
  mixWordB,
  NEED_MORE,
  NULL_A,
  SEED_ARRAY_A,
  SEED_ARRAY_B,
  SEED_OBJECT_A,
  SEED_OBJECT_B,
  spread,
  TOKEN,
  TRUE_A,
} from './hash-mix.ts';
import { scanNumber } from './scan-number.ts';
import { malformed, scanString } from './scan-string.ts';

export { NEED_MORE } from './hash-mix.ts';

const KIND_OBJECT = 1;
const KIND_ARRAY = 2;

const ST_VALUE = 0;
const ST_VALUE_OR_CLOSE = 1;
const ST_KEY = 2;
const ST_KEY_OR_CLOSE = 3;
const ST_AFTER = 4;

// Explicit stack (no recursion on the JS stack, so nesting depth is bounded only by maxDepth).
let kind = new Uint8Array(64);
let laneA = new Int32Array(64);
let laneB = new Int32Array(64);
let count = new Int32Array(64);
let keyA = new Int32Array(64);
let keyBase = new Int32Array(64);
// Keys of the open objects, for duplicate detection.
let keyHash = new Int32Array(256);
let keyStart = new Int32Array(256);
let keyEnd = new Int32Array(256);
let keyTop = 0;
/** Token of the container that `close` just finished. */
const CLOSED = new Int32Array(2);

const grow = (a: Int32Array): Int32Array<ArrayBuffer> => {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
};

function growStack(): void {
  const k = new Uint8Array(kind.length * 2);
  k.set(kind);
  kind = k;
  laneA = grow(laneA);
  laneB = grow(laneB);
  count = grow(count);
  keyA = grow(keyA);
  keyBase = grow(keyBase);
}

function pushKey(hash: number, start: number, end: number): void {
  if (keyTop === keyHash.length) {
    keyHash = grow(keyHash);
    keyStart = grow(keyStart);
    keyEnd = grow(keyEnd);
  }
  keyHash[keyTop] = hash;
  keyStart[keyTop] = start;
  keyEnd[keyTop] = end;
  keyTop++;
}

const keyText = (buf: Uint8Array, i: number): string =>
  JSON.parse(new TextDecoder().decode(buf.subarray(keyStart[i], keyEnd[i]))) as string;

/**
 * Rejects an object that names a key twice. JSON.parse would silently keep the last value, which would
 * let a row hide data from the comparison; the contract's rows are maps, so a duplicate is bad input.
 */
function checkDuplicateKeys(buf: Uint8Array, from: number, to: number): void {
  const fail = (i: number): never => {
    throw new GatewayError('invalid-verify-input', `duplicate key ${JSON.stringify(keyText(buf, i))}`, {
      offset: keyStart[i],
    });
  };
  if (to - from <= 16) {
    for (let i = from + 1; i < to; i++) {
      for (let j = from; j < i; j++) {
        if (keyHash[j] === keyHash[i] && keyText(buf, i) === keyText(buf, j)) fail(i);
      }
    }
    return;
  }
  // Wide objects: bucket by hash so the check stays linear.
  const seen = new Map<number, number[]>();
  for (let i = from; i < to; i++) {
    const h = keyHash[i]!;
    const same = seen.get(h);
    if (same === undefined) seen.set(h, [i]);
    else {
      for (const j of same) if (keyText(buf, i) === keyText(buf, j)) fail(i);
      same.push(i);
    }
  }
}

function literal(buf: Uint8Array, p: number, end: number, word: string): number {
  for (let i = 1; i < word.length; i++) {
    if (p + i >= end) return NEED_MORE;
    if (buf[p + i] !== word.charCodeAt(i)) throw malformed('invalid literal', p);
  }
  return p + word.length;
}

/**
 * Scans one complete JSON value starting at `start` (no leading whitespace) and computes its canonical hash:
 * object members are hashed as (key, value) pairs and summed per lane, so key order does not matter (keys are
 * unique, so the sum is over a set); arrays are hashed in order. Validates syntax, UTF-8, unique keys and the
 * nesting limit. Atomic: returns NEED_MORE when the value is incomplete and can be rescanned from `start`.
 *
 * @example
 *   const out = new Int32Array(3);
 *   const bytes = new TextEncoder().encode('{"b":1.0,"a":"x"} ');
 *   scanValue(bytes, 0, bytes.length, 256, out); // → 17; out equals the hash of {"a":"x","b":1}
 * @returns index after the value, or NEED_MORE; out = [laneA, laneB, flags]
 */
export function scanValue(
  buf: Uint8Array,
  start: number,
  end: number,
  maxDepth: number,
  out: Int32Array,
): number {
  let p = start;
  let depth = 0;
  let state = ST_VALUE;
  let flags = 0;
  keyTop = 0;
  for (;;) {
    let c = 0;
    while (p < end) {
      c = buf[p]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    if (p >= end) return NEED_MORE;
    // The token of the value just completed (containers: both lanes, folded when delivered to a parent).
    let ta: number;
    let tb = 0;
    let container = false;
    if (state === ST_AFTER) {
      const top = depth - 1;
      if (c === 0x2c) {
        p++;
        state = kind[top] === KIND_OBJECT ? ST_KEY : ST_VALUE;
        continue;
      }
      if (kind[top] === KIND_OBJECT ? c !== 0x7d : c !== 0x5d)
        throw malformed('expected , or closing bracket', p);
      p++;
      close(buf, top);
      ta = CLOSED[0]!;
      tb = CLOSED[1]!;
      container = true;
      depth--;
    } else if (state === ST_KEY || state === ST_KEY_OR_CLOSE) {
      const top = depth - 1;
      if (c === 0x7d && state === ST_KEY_OR_CLOSE) {
        p++;
        close(buf, top);
        ta = CLOSED[0]!;
        tb = CLOSED[1]!;
        container = true;
        depth--;
      } else {
        if (c !== 0x22) throw malformed('expected a key', p);
        const q = scanString(buf, p + 1, end);
        if (q === NEED_MORE) return NEED_MORE;
        keyA[top] = TOKEN[0]!;
        pushKey(TOKEN[0]!, p, q);
        p = q;
        while (p < end && (buf[p] === 0x20 || buf[p] === 0x0a || buf[p] === 0x0d || buf[p] === 0x09)) p++;
        if (p >= end) return NEED_MORE;
        if (buf[p] !== 0x3a) throw malformed('expected :', p);
        p++;
        state = ST_VALUE;
        continue;
      }
    } else {
      if (c === 0x5d && state === ST_VALUE_OR_CLOSE) {
        p++;
        close(buf, depth - 1);
        ta = CLOSED[0]!;
        tb = CLOSED[1]!;
        container = true;
        depth--;
      } else if (c === 0x7b || c === 0x5b) {
        if (depth >= maxDepth) {
          throw new GatewayError('invalid-verify-input', `nesting deeper than ${maxDepth} levels`, {
            offset: p,
          });
        }
        if (depth === kind.length) growStack();
        const isObject = c === 0x7b;
        kind[depth] = isObject ? KIND_OBJECT : KIND_ARRAY;
        laneA[depth] = isObject ? 0 : SEED_ARRAY_A;
        laneB[depth] = isObject ? 0 : SEED_ARRAY_B;
        count[depth] = 0;
        keyBase[depth] = keyTop;
        depth++;
        p++;
        state = isObject ? ST_KEY_OR_CLOSE : ST_VALUE_OR_CLOSE;
        continue;
      } else {
        let q: number;
        if (c === 0x22) {
          q = scanString(buf, p + 1, end);
          ta = TOKEN[0]!;
        } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          q = scanNumber(buf, p, end);
          ta = TOKEN[0]!;
          flags |= TOKEN[2]!;
        } else if (c === 0x74) {
          q = literal(buf, p, end, 'true');
          ta = TRUE_A;
        } else if (c === 0x66) {
          q = literal(buf, p, end, 'false');
          ta = FALSE_A;
        } else if (c === 0x6e) {
          q = literal(buf, p, end, 'null');
          ta = NULL_A;
        } else {
          throw malformed('unexpected character', p);
        }
        if (q === NEED_MORE) return NEED_MORE;
        p = q;
      }
    }
    // A value is complete: hand its token to the enclosing container, or finish.
    if (depth === 0) {
      out[0] = ta;
      out[1] = container ? tb : ta;
      out[2] = flags;
      return p;
    }
    const top = depth - 1;
    const t = container ? fold(ta, tb) : ta;
    if (kind[top] === KIND_ARRAY) {
      laneA[top] = mixWord(laneA[top]!, t);
      laneB[top] = mixWordB(laneB[top]!, t);
    } else {
      const m = member(keyA[top]!, t);
      laneA[top] = (laneA[top]! + m) | 0;
      laneB[top] = (laneB[top]! + spread(m)) | 0;
    }
    count[top]!++;
    state = ST_AFTER;
  }
}

function close(buf: Uint8Array, top: number): void {
  const n = count[top]!;
  if (kind[top] === KIND_OBJECT) {
    if (n > 1) checkDuplicateKeys(buf, keyBase[top]!, keyTop);
    keyTop = keyBase[top]!;
    CLOSED[0] = fmix(mixWord(SEED_OBJECT_A ^ n, laneA[top]!));
    CLOSED[1] = fmix(mixWordB(SEED_OBJECT_B ^ n, laneB[top]!));
  } else {
    CLOSED[0] = fmix(laneA[top]! ^ n);
    CLOSED[1] = fmix(laneB[top]! ^ n);
  }
}
