import { GatewayError } from '../errors.ts';
import { BodyReader } from './body-reader.ts';
import type { ResolvedTolerance } from './canonical.ts';
import { resolveLeftovers } from './leftovers.ts';
import { dataView } from './scan-string.ts';
import type { Leftovers } from './leftovers.ts';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_DIFFERENCES, MAX_MAX_DEPTH, MAX_MAX_DIFFERENCES } from './types.ts';
import type { DifferenceEntry, JsonRow, VerifyLimits, VerifyOptions, VerifyResult } from './types.ts';

const MAX_BUFFER = 0xffffffff; // row spans are stored as Uint32
const DEFAULT_YIELD_EVERY = 1024 * 1024;
const SCAN_EVERY = 256 * 1024;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Compares the two result sets of a POST /verify body, the one comparison shared by the HTTP route and the
 * CLI. Scans the raw bytes once, streaming when given chunks (e.g. a Node request, which is an
 * AsyncIterable<Uint8Array>), yielding to the event loop every `limits.yieldEveryBytes`: each row is hashed by
 * its canonical form (sorted keys, exact decimal numbers, unescaped strings) and counted per side; a row that
 * repeats an earlier row byte for byte is recognised without rescanning; only rows left unmatched are
 * decoded. Exact: a hash match only counts once the row bytes (or their canonical text) are confirmed equal.
 *
 * Semantics: rows compare as a multiset (order ignored). Rows are equal when they have the same keys and
 * equal values (null ≠ absent; numbers by exact decimal value, `1` = `1.0` = `1e0`, 9007199254740993 ≠
 * 9007199254740992; `true` ≠ `1`; `"1"` ≠ `1`; strings after unescaping; arrays in order; nested objects
 * ignoring key order). When a row occurs more often on one side, the trailing surplus occurrences are the
 * unmatched ones. Leftovers are then paired by `key` or matched within `tolerance` (see leftovers.ts).
 * Entries: those with an original row ascending by `row`, then rewritten-only ones ascending by `row`.
 *
 * Bad input: body not an object, `original`/`rewritten` missing or not arrays, a row that is not an object, a
 * duplicate key in any object (JSON.parse would keep the last silently), nesting deeper than
 * `limits.maxDepth`, invalid options → `invalid-verify-input` with context {side, index} or {field};
 * invalid JSON, invalid UTF-8 or a truncated body → `malformed-json` (with side/index when inside a row);
 * more than `limits.maxBodyBytes` → `payload-too-large`. Unknown top-level members are validated and ignored.
 *
 * @example
 *   const body = new TextEncoder().encode('{"original":[{"a":1},{"a":2}],"rewritten":[{"a":2.0},{"a":3}]}');
 *   await verifyJsonBody(body);
 *   // → { equal: false, truncated: false,
 *   //     differences: [{ row: 0, original: { a: 1 }, rewritten: null }, { row: 1, original: null, rewritten: { a: 3 } }],
 *   //     summary: { original_rows: 2, rewritten_rows: 2, missing: 1, extra: 1, changed: 0 } }
 * @param options defaults for members absent from the body (a member in the body wins)
 */
export async function verifyJsonBody(
  body: Uint8Array | AsyncIterable<Uint8Array>,
  options: VerifyOptions & VerifyLimits = {},
): Promise<VerifyResult> {
  const maxDepth = Math.min(options.maxDepth ?? DEFAULT_MAX_DEPTH, MAX_MAX_DEPTH);
  const maxBytes = Math.min(options.maxBodyBytes ?? MAX_BUFFER, MAX_BUFFER);
  const step = Math.max(options.yieldEveryBytes ?? DEFAULT_YIELD_EVERY, 1024);
  // Streamed bodies drop the second side's repeated rows as they arrive (less memory, fewer page faults).
  const reader = new BodyReader(maxDepth, !(body instanceof Uint8Array));
  try {
    try {
      await scan(reader, body, maxBytes, step, options.expectedBytes ?? 0, options.releaseChunks === true);
    } finally {
      // The DataView cache would otherwise keep the whole body alive until the next request.
      dataView(EMPTY);
    }
    return await compareScanned(reader, options);
  } finally {
    reader.rows.release();
  }
}

/** Leftovers, key/tolerance pairing and the result, once the whole body is scanned. */
async function compareScanned(reader: BodyReader, options: VerifyOptions): Promise<VerifyResult> {
  for (const [i, side] of (['original', 'rewritten'] as const).entries()) {
    if (!reader.seen[i]) {
      throw new GatewayError('invalid-verify-input', `missing ${side}`, { side, index: null });
    }
  }
  const key = readKey(reader.members, options);
  const tolerance = readTolerance(reader.members, options);
  const maxDifferences = readMaxDifferences(reader.members, options);

  const unmatched = [reader.rows.exactLeftovers(0), reader.rows.exactLeftovers(1)] as const;
  const cache = new Map<number, JsonRow>();
  const decode = (ref: number): JsonRow => {
    let row = cache.get(ref);
    if (row === undefined) cache.set(ref, (row = reader.decodeRow(ref)));
    return row;
  };
  const left = await resolveLeftovers({
    original: unmatched[0],
    rewritten: unmatched[1],
    decode,
    key,
    tolerance,
    pause: yieldToEventLoop,
  });
  return buildResult(left, reader.rows.rowCount(0), reader.rows.rowCount(1), maxDifferences, decode);
}

const EMPTY = new Uint8Array(0);

async function scan(
  reader: BodyReader,
  body: Uint8Array | AsyncIterable<Uint8Array>,
  maxBytes: number,
  step: number,
  expectedBytes: number,
  releaseChunks: boolean,
): Promise<void> {
  const tooLarge = (): GatewayError =>
    new GatewayError('payload-too-large', `the body exceeds ${maxBytes} bytes`, { limit: maxBytes });
  if (body instanceof Uint8Array) {
    if (body.length > maxBytes) throw tooLarge();
    reader.adopt(body);
    for (let end = Math.min(step, body.length); ; end = Math.min(end + step, body.length)) {
      reader.run(end, end === body.length);
      if (end === body.length) break;
      await yieldToEventLoop();
    }
  } else {
    if (Number.isSafeInteger(expectedBytes) && expectedBytes > 0) {
      reader.reserve(Math.min(expectedBytes, maxBytes));
    }
    let sinceYield = 0;
    // Bytes received (reader.len can be less: compaction drops bytes already matched).
    let received = 0;
    // Chunks (64 KiB from a socket) are scanned a few at a time: fewer calls and compactions per byte. The
    // first ones each at once, so a body that is bad from its start is refused before much more is read.
    let unscanned = 0;
    for await (const chunk of body) {
      received += chunk.length;
      if (received > maxBytes) throw tooLarge();
      reader.append(chunk);
      unscanned += chunk.length;
      sinceYield += chunk.length;
      if (releaseChunks) release(chunk);
      if (unscanned >= SCAN_EVERY || received <= SCAN_EVERY) {
        reader.run(reader.len, false);
        unscanned = 0;
      }
      if (sinceYield >= step) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
    reader.run(reader.len, true);
  }
}

/**
 * Frees a chunk's memory now, once it is copied: detaches its ArrayBuffer if the chunk is all of it (not a
 * view into a pool or a larger buffer) and it can be detached (not shared, not WebAssembly memory).
 */
function release(chunk: Uint8Array): void {
  const buffer = chunk.buffer;
  if (!(buffer instanceof ArrayBuffer) || chunk.byteOffset !== 0 || chunk.byteLength !== buffer.byteLength)
    return;
  try {
    buffer.transfer(0);
  } catch {
    // not detachable: its memory waits for a collection as usual
  }
}

/**
 * The same comparison for rows already in memory (e.g. from a warehouse client). Numbers must be JS numbers
 * or `JSON.rawJSON` values; they are re-encoded with JSON.stringify and compared as bytes.
 */
export async function verifyRows(
  original: readonly unknown[],
  rewritten: readonly unknown[],
  options: VerifyOptions & VerifyLimits = {},
): Promise<VerifyResult> {
  const text = JSON.stringify({ original, rewritten });
  return verifyJsonBody(new TextEncoder().encode(text), options);
}

function buildResult(
  left: Leftovers,
  originalRows: number,
  rewrittenRows: number,
  maxDifferences: number,
  decode: (ref: number) => JsonRow,
): VerifyResult {
  const total = left.missing.length + left.extra.length + left.changed.length;
  const differences: DifferenceEntry[] = [];
  // Missing and changed are each ascending by original index: merge them.
  let m = 0;
  let c = 0;
  while (differences.length < maxDifferences && (m < left.missing.length || c < left.changed.length)) {
    const o = left.missing[m];
    const pair = left.changed[c];
    if (pair === undefined || (o !== undefined && o < pair[0])) {
      differences.push({ row: o!, original: decode(o!), rewritten: null });
      m++;
    } else {
      const [oi, ri] = pair;
      differences.push({ row: oi, original: decode(oi), rewritten: decode(~ri), rewritten_row: ri });
      c++;
    }
  }
  for (let e = 0; differences.length < maxDifferences && e < left.extra.length; e++) {
    const r = left.extra[e]!;
    differences.push({ row: r, original: null, rewritten: decode(~r) });
  }
  return {
    equal: total === 0,
    differences,
    summary: {
      original_rows: originalRows,
      rewritten_rows: rewrittenRows,
      missing: left.missing.length,
      extra: left.extra.length,
      changed: left.changed.length,
    },
    truncated: differences.length < total,
  };
}

const badOption = (field: string, detail: string): GatewayError =>
  new GatewayError('invalid-verify-input', `${field} ${detail}`, { field });

function readKey(members: Map<string, unknown>, options: VerifyOptions): readonly string[] | undefined {
  const v = members.has('key') ? members.get('key') : options.key;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length === 0 || !v.every((k) => typeof k === 'string')) {
    throw badOption('key', 'must be a non-empty array of column names');
  }
  return v;
}

function readTolerance(members: Map<string, unknown>, options: VerifyOptions): ResolvedTolerance {
  const v = members.has('tolerance') ? members.get('tolerance') : options.tolerance;
  if (v === undefined || v === null) return { abs: 0, rel: 0, active: false };
  if (typeof v !== 'object' || Array.isArray(v)) throw badOption('tolerance', 'must be an object {abs, rel}');
  const t = v as Record<string, unknown>;
  const part = (name: 'abs' | 'rel'): number => {
    const x = t[name] ?? 0;
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) {
      throw badOption('tolerance', `${name} must be a finite number ≥ 0`);
    }
    return x;
  };
  const abs = part('abs');
  const rel = part('rel');
  return { abs, rel, active: abs > 0 || rel > 0 };
}

function readMaxDifferences(members: Map<string, unknown>, options: VerifyOptions): number {
  const v = members.has('max_differences') ? members.get('max_differences') : options.maxDifferences;
  if (v === undefined || v === null) return DEFAULT_MAX_DIFFERENCES;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_MAX_DIFFERENCES) {
    throw badOption('max_differences', `must be an integer from 0 to ${MAX_MAX_DIFFERENCES}`);
  }
  return v;
}
