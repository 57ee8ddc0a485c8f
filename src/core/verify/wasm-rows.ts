import { GatewayError } from '../errors.ts';
import { VERIFY_WASM_BASE64 } from './wasm-module.ts';

/** The exports of wasm/verify/index.ts (see there for what each does). Pointers and indexes are u32. */
type Exports = {
  memory: { buffer: ArrayBuffer };
  init(): void;
  ensureBody(cap: number, used: number): number;
  expect(bytes: number): void;
  spanPtr(side: number): number;
  idPtr(side: number): number;
  flagsPtr(side: number): number;
  rowCount(side: number): number;
  distinct(): number;
  countsPtr(side: number): number;
  newSide(): void;
  addScanned(side: number, p: number, q: number, end: number, a: number, b: number, flags: number): number;
  reason(): number;
  afterRow(): number;
  rows(p: number, end: number, side: number, after: number): number;
  reset(): void;
  beginCompaction(side: number, at: number): void;
  compact(pos: number, len: number): number;
  exactLeftovers(side: number): number;
  leftovers(): number;
  scanOne(p: number, end: number): number;
  lastRow(i: number): number;
};

type WasmApi = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  RuntimeError: new () => Error;
};
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: object | undefined;
function wasmModule(): object {
  if (compiled === undefined) {
    const bin = atob(VERIFY_WASM_BASE64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    compiled = new WA.Module(bytes);
  }
  return compiled;
}

/** An instance with the callback it reports to (swapped when the instance serves another body). */
type Pooled = { x: Exports; canonicalEqual: (rep: number, ref: number) => boolean };

/**
 * The instance of the last body, kept for the next one for IDLE_MS: its memory is already mapped, so the next
 * body is copied and counted without a page fault per 4 KiB (about a tenth of the time of a large body).
 * Only one is kept, only up to RETAIN_BYTES, and only while idle: it is dropped (and its memory freed with
 * it) when no body comes within IDLE_MS.
 */
let idle: Pooled | undefined;
let idleTimer: ReturnType<typeof setTimeout> | undefined;
const IDLE_MS = 10_000;
const RETAIN_BYTES = 1024 * 1024 * 1024;

function take(canonicalEqual: (rep: number, ref: number) => boolean): Pooled {
  const kept = idle;
  if (kept !== undefined) {
    idle = undefined;
    clearTimeout(idleTimer);
    kept.x.reset();
    kept.canonicalEqual = canonicalEqual;
    return kept;
  }
  const pooled: Pooled = { x: undefined as unknown as Exports, canonicalEqual };
  const instance = new WA.Instance(wasmModule(), {
    env: { canonicalEqual: (rep: number, ref: number) => (pooled.canonicalEqual(rep, ref) ? 1 : 0) },
  });
  pooled.x = instance.exports as Exports;
  pooled.x.init();
  return pooled;
}

/** Why `rows` stopped. */
export const STOP_OTHER = 0;
export const STOP_NEED_MORE = 1;
export const STOP_FALLBACK = 2;

/**
 * One body's row store and fast row scanner, in WebAssembly built from wasm/verify/index.ts: the body bytes,
 * per side the rows' spans, distinct ids and flags, the distinct-row table (canonical hash → counts per side)
 * and the repeat index. `rows` scans `row , row , …` the way scanRow + BodyReader do, and stops at anything
 * else (a nested value, an error, the end of the array) for the JS reader, which stays the reference for
 * every error message. The hash is the same function as the JS scanner's, so rows scanned by either match.
 *
 * One body at a time per instance: its memory only grows; `release` hands it to the next body (see `idle`).
 */
export class RowScanner {
  len = 0;
  private readonly x: Exports;
  private readonly pooled: Pooled;
  private released = false;
  private body = 0;
  private cap = 0;
  private viewOf: ArrayBuffer | null = null;
  private view = new Uint8Array(0);

  /** @param canonicalEqual exact equality of two rows (refs: `i` original, `~i` rewritten) whose bytes differ */
  constructor(canonicalEqual: (rep: number, ref: number) => boolean) {
    this.pooled = take(canonicalEqual);
    this.x = this.pooled.x;
  }

  /** The body is done with: its instance may serve the next body. Nothing here may be used after this. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.pooled.canonicalEqual = () => false;
    if (idle !== undefined || this.x.memory.buffer.byteLength > RETAIN_BYTES) return;
    idle = this.pooled;
    idleTimer = setTimeout(() => (idle = undefined), IDLE_MS);
    idleTimer.unref();
  }

  /** The body bytes received so far. A fresh view when memory has grown: re-read it after any call here. */
  bytes(): Uint8Array {
    const buffer = this.x.memory.buffer;
    if (buffer !== this.viewOf || this.view.length !== this.len) {
      this.view = new Uint8Array(buffer, this.body, this.len);
      this.viewOf = buffer;
    }
    return this.view;
  }

  /** Room for `bytes` body bytes in total, allocated once (see BodyReader.reserve); also sizes the tables. */
  reserve(bytes: number): void {
    if (!(bytes > this.cap && bytes <= 0xffffffff)) return;
    try {
      this.grow(bytes);
    } catch {
      return; // more than the memory can hold: grow as chunks arrive instead
    }
    this.x.expect(bytes);
  }

  append(chunk: Uint8Array): void {
    const need = this.len + chunk.length;
    if (need > this.cap) this.grow(Math.max(need, Math.min(this.cap * 2, 0xffffffff), 65536));
    new Uint8Array(this.x.memory.buffer, this.body + this.len, chunk.length).set(chunk);
    this.len = need;
  }

  private grow(cap: number): void {
    if (cap <= this.cap) return;
    this.body = this.guard(() => this.x.ensureBody(cap, this.len)) >>> 0;
    this.cap = cap;
  }

  /** The second side's rows start at `at`: from now on `compact` may drop the bytes of its repeated rows. */
  beginCompaction(side: 0 | 1, at: number): void {
    this.x.beginCompaction(side, at);
  }

  /**
   * Drops the second side's rows that repeat a row of the first side (keeping the rest) and moves the bytes
   * not yet processed, [pos, len), down after them. Returns by how much those positions moved down.
   */
  compact(pos: number): number {
    const delta = this.x.compact(pos, this.len) >>> 0;
    this.len -= delta;
    return delta;
  }

  /** Scans rows of `side` from p; returns where it stopped (see `stop` and `afterRow`). */
  rows(p: number, end: number, side: 0 | 1, afterRow: boolean): number {
    return this.guard(() => this.x.rows(p, end, side, afterRow ? 1 : 0)) >>> 0;
  }

  /** Why the last `rows` stopped: STOP_OTHER, STOP_NEED_MORE or STOP_FALLBACK. */
  stop(): number {
    return this.x.reason();
  }

  /** Whether the last `rows` stopped after a row (expecting `,` or `]`). */
  afterRow(): boolean {
    return this.x.afterRow() !== 0;
  }

  /** Records a row the JS scanner scanned (hash lanes a, b); returns its distinct id. */
  addScanned(side: 0 | 1, p: number, q: number, end: number, a: number, b: number, flags: number): number {
    return this.guard(() => this.x.addScanned(side, p, q, end, a, b, flags));
  }

  newSide(): void {
    this.x.newSide();
  }

  rowCount(side: 0 | 1): number {
    return this.x.rowCount(side);
  }

  distinct(): number {
    return this.x.distinct();
  }

  /** Row i of `side`: [start, end) in the body and its flags. */
  span(side: 0 | 1, i: number): [number, number, number] {
    const buffer = this.x.memory.buffer;
    const span = new Uint32Array(buffer, this.x.spanPtr(side) >>> 0, 2 * this.rowCount(side));
    const flags = new Uint8Array(buffer, this.x.flagsPtr(side) >>> 0, this.rowCount(side));
    return [span[2 * i]!, span[2 * i + 1]!, flags[i]!];
  }

  /** Distinct id per row of `side`. */
  ids(side: 0 | 1): Int32Array {
    return new Int32Array(this.x.memory.buffer, this.x.idPtr(side) >>> 0, this.rowCount(side));
  }

  /** Indexes of `side`'s rows without an exact counterpart (the trailing surplus occurrences), ascending. */
  exactLeftovers(side: 0 | 1): number[] {
    const n = this.guard(() => this.x.exactLeftovers(side));
    return [...new Uint32Array(this.x.memory.buffer, this.x.leftovers() >>> 0, n)];
  }

  /** Occurrences on `side` per distinct id. */
  counts(side: 0 | 1): Int32Array {
    return new Int32Array(this.x.memory.buffer, this.x.countsPtr(side) >>> 0, this.distinct());
  }

  /**
   * Scans the one row at p with the WebAssembly scanner alone (for tests: its hash must equal the JS
   * scanner's). Returns the index after the row, -1 when incomplete, -2 when left to the JS scanner.
   */
  scanOne(p: number, end: number): { end: number; a: number; b: number; flags: number } {
    const q = this.x.scanOne(p, end);
    return { end: q, a: this.x.lastRow(0), b: this.x.lastRow(1), flags: this.x.lastRow(2) };
  }

  /** A trap means memory ran out (4 GiB of WebAssembly memory: the body plus its row tables). */
  private guard<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof WA.RuntimeError) {
        throw new GatewayError('payload-too-large', 'the body and its row tables do not fit in memory', {});
      }
      throw e;
    }
  }
}
