import { GatewayError, isGatewayError } from '../errors.ts';
import { canonicalText } from './canonical.ts';
import { decodeSpan } from './decode.ts';
import { RowLayout, scanRow } from './scan-row.ts';
import { isValueStart, isWs, malformed, scanString } from './scan-string.ts';
import { NEED_MORE, scanValue } from './scanner.ts';
import { RowScanner, STOP_FALLBACK, STOP_NEED_MORE } from './wasm-rows.ts';

export type SideName = 'original' | 'rewritten';
export const SIDE_NAMES: readonly [SideName, SideName] = ['original', 'rewritten'];

const B_START = 0;
const B_MEMBER_FIRST = 1;
const B_MEMBER = 2;
const B_ROWS_OPEN = 3;
const B_ROW_FIRST = 4;
const B_ROW = 5;
const B_AFTER_ROW = 6;
const B_OTHER = 7;
const B_AFTER_MEMBER = 8;
const B_END = 9;

/**
 * Reads the request object `{original, rewritten, ...}` (members in any order) incrementally: every row is
 * scanned once, hashed and counted as soon as its bytes are there; other members are decoded as JSON values.
 * All bytes are kept so unmatched rows can be decoded afterwards. The bytes, the rows and their counts live
 * in a RowScanner (WebAssembly), which also scans the common rows (flat objects) itself; this class handles
 * the body's structure, every other value, and every error.
 */
export class BodyReader {
  readonly seen: [boolean, boolean] = [false, false];
  readonly members = new Map<string, unknown>();
  readonly rows: RowScanner;

  private pos = 0;
  private state = B_START;
  private side: 0 | 1 = 0;
  private member = '';
  /** A value that did not fit is rescanned only once the buffer has doubled past it (linear total work). */
  private retryAt = 0;
  private readonly out = new Int32Array(3);
  private readonly maxDepth: number;
  private readonly canonicalCache = new Map<number, string>();
  private layout = new RowLayout();
  /** Whether the second side is compacted as it streams in (see RowScanner.compact). */
  private readonly compacting: boolean;
  /** Bytes dropped by compaction: positions from here on are this much lower than in the body. */
  private shift = 0;

  /** @param compacting drop the second side's repeated rows' bytes as they stream in (with `append`) */
  constructor(maxDepth: number, compacting = false) {
    this.maxDepth = maxDepth;
    this.compacting = compacting;
    this.rows = new RowScanner((rep, ref) => this.sameCanonical(rep, ref));
  }

  /** The body bytes so far (a view: take it again after anything that may have grown the store). */
  get buf(): Uint8Array {
    return this.rows.bytes();
  }

  get len(): number {
    return this.rows.len;
  }

  /**
   * Allocates room for `bytes` up front (e.g. from Content-Length) so each chunk is copied once: growing by
   * doubling costs ~3x the copying and page faults. Only a hint: a longer body still grows, a shorter one
   * uses part of it. Untouched pages are not resident, so an overstated hint costs address space, not memory.
   */
  reserve(bytes: number): void {
    this.rows.reserve(bytes);
  }

  /** Appends a chunk (copied once into the store). */
  append(chunk: Uint8Array): void {
    this.rows.append(chunk);
  }

  /** Uses `bytes` as the whole body (one copy into the store). */
  adopt(bytes: Uint8Array): void {
    this.rows.reserve(bytes.length);
    this.rows.append(bytes);
  }

  /**
   * Processes bytes up to `end` (at most `len`); with `final`, the body ends there and anything incomplete is
   * an error. Error offsets are offsets into the body as sent.
   */
  run(end: number, final: boolean): void {
    if (!final && end < this.retryAt) return;
    try {
      this.step(end, final);
    } catch (e) {
      const offset = isGatewayError(e) ? e.context['offset'] : undefined;
      if (this.shift === 0 || !isGatewayError(e) || typeof offset !== 'number') throw e;
      throw new GatewayError(e.code, e.detail, { ...e.context, offset: offset + this.shift });
    }
    if (this.compacting && this.inSecondSide()) {
      const delta = this.rows.compact(this.pos);
      if (delta > 0) {
        this.pos -= delta;
        this.retryAt = Math.max(0, this.retryAt - delta);
        this.shift += delta;
        this.layout = new RowLayout(); // it holds positions of the previous row's keys
      }
    }
  }

  private inSecondSide(): boolean {
    return (
      this.seen[0] &&
      this.seen[1] &&
      (this.state === B_ROW_FIRST || this.state === B_ROW || this.state === B_AFTER_ROW)
    );
  }

  private step(end: number, final: boolean): void {
    let buf = this.buf;
    let p = this.pos;
    for (;;) {
      while (p < end && isWs(buf[p]!)) p++;
      this.pos = p;
      if (p >= end) break;
      if (this.state === B_ROW_FIRST || this.state === B_ROW || this.state === B_AFTER_ROW) {
        // The common rows, in WebAssembly; it stops at anything else, handled below as before.
        const q = this.rows.rows(p, end, this.side, this.state === B_AFTER_ROW);
        buf = this.buf;
        if (q !== p) this.state = this.rows.afterRow() ? B_AFTER_ROW : B_ROW;
        p = q;
        this.pos = p;
        const stop = this.rows.stop();
        if (stop === STOP_NEED_MORE) return this.wait(p, end, final);
        if (stop === STOP_FALLBACK) {
          const r = this.row(p, end);
          buf = this.buf;
          if (r === NEED_MORE) return this.wait(p, end, final);
          this.state = B_AFTER_ROW;
          p = r;
          this.pos = p;
          continue;
        }
        if (p >= end) break;
      }
      const c = buf[p]!;
      switch (this.state) {
        case B_START:
          if (c !== 0x7b) {
            if (!isValueStart(c)) throw malformed('unexpected character', p);
            throw new GatewayError('invalid-verify-input', 'the body must be a JSON object', { offset: p });
          }
          this.state = B_MEMBER_FIRST;
          p++;
          break;
        case B_MEMBER_FIRST:
        case B_MEMBER: {
          if (c === 0x7d && this.state === B_MEMBER_FIRST) {
            this.state = B_END;
            p++;
            break;
          }
          if (c !== 0x22) throw malformed('expected a member name', p);
          let q = scanString(buf, p + 1, end);
          if (q === NEED_MORE) return this.wait(p, end, final);
          const name = JSON.parse(new TextDecoder().decode(buf.subarray(p, q))) as string;
          while (q < end && isWs(buf[q]!)) q++;
          if (q >= end) return this.wait(p, end, final);
          if (buf[q] !== 0x3a) throw malformed('expected :', q);
          if (name === 'original' || name === 'rewritten') {
            this.side = name === 'original' ? 0 : 1;
            if (this.seen[this.side])
              throw new GatewayError('invalid-verify-input', `duplicate member "${name}"`, { offset: p });
            this.seen[this.side] = true;
            this.rows.newSide();
            this.state = B_ROWS_OPEN;
          } else {
            if (this.members.has(name))
              throw new GatewayError('invalid-verify-input', `duplicate member "${name}"`, { offset: p });
            this.member = name;
            this.state = B_OTHER;
          }
          p = q + 1;
          break;
        }
        case B_ROWS_OPEN:
          if (c !== 0x5b && !isValueStart(c) && c !== 0x7b) throw malformed('expected a value', p);
          if (c !== 0x5b) {
            throw new GatewayError(
              'invalid-verify-input',
              `${SIDE_NAMES[this.side]} must be an array of row objects`,
              {
                side: SIDE_NAMES[this.side],
                index: null,
                offset: p,
              },
            );
          }
          this.state = B_ROW_FIRST;
          p++;
          if (this.compacting && this.seen[0] && this.seen[1]) this.rows.beginCompaction(this.side, p);
          break;
        case B_ROW_FIRST:
        case B_ROW: {
          if (c === 0x5d && this.state === B_ROW_FIRST) {
            this.state = B_AFTER_MEMBER;
            p++;
            break;
          }
          const q = this.row(p, end);
          buf = this.buf;
          if (q === NEED_MORE) return this.wait(p, end, final);
          this.state = B_AFTER_ROW;
          p = q;
          break;
        }
        case B_AFTER_ROW:
          if (c === 0x2c) this.state = B_ROW;
          else if (c === 0x5d) this.state = B_AFTER_MEMBER;
          else throw this.rowError(malformed('expected , or ]', p), this.rows.rowCount(this.side));
          p++;
          break;
        case B_OTHER: {
          const q = this.other(p, end);
          if (q === NEED_MORE) return this.wait(p, end, final);
          this.state = B_AFTER_MEMBER;
          p = q;
          break;
        }
        case B_AFTER_MEMBER:
          if (c === 0x2c) this.state = B_MEMBER;
          else if (c === 0x7d) this.state = B_END;
          else throw malformed('expected , or }', p);
          p++;
          break;
        default:
          throw malformed('unexpected data after the body', p);
      }
      this.pos = p;
    }
    if (final && this.state !== B_END) throw malformed('unexpected end of body', end);
  }

  private wait(p: number, end: number, final: boolean): void {
    if (final) {
      const e = malformed('unexpected end of body', end);
      throw this.state === B_ROW || this.state === B_ROW_FIRST
        ? this.rowError(e, this.rows.rowCount(this.side))
        : e;
    }
    this.pos = p;
    this.retryAt = p + 2 * (end - p);
  }

  /** A row the WebAssembly scanner left to JS (nested values, errors, rare forms): scan, then record it. */
  private row(p: number, end: number): number {
    const index = this.rows.rowCount(this.side);
    const buf = this.buf;
    const c = buf[p]!;
    if (c !== 0x7b) {
      if (!isValueStart(c)) throw this.rowError(malformed('unexpected character', p), index);
      throw new GatewayError('invalid-verify-input', `${SIDE_NAMES[this.side]}[${index}] is not an object`, {
        side: SIDE_NAMES[this.side],
        index,
      });
    }
    let q: number;
    try {
      q = scanRow(buf, p, end, this.maxDepth, this.out, this.layout);
    } catch (e) {
      throw isGatewayError(e) ? this.rowError(e, index) : e;
    }
    if (q === NEED_MORE) return NEED_MORE;
    this.rows.addScanned(this.side, p, q, end, this.out[0]!, this.out[1]!, this.out[2]!);
    return q;
  }

  private other(p: number, end: number): number {
    let q: number;
    const buf = this.buf;
    try {
      q = scanValue(buf, p, end, this.maxDepth, this.out);
    } catch (e) {
      if (!isGatewayError(e)) throw e;
      throw new GatewayError(e.code, `${this.member}: ${e.detail}`, { ...e.context, field: this.member });
    }
    if (q === NEED_MORE) return NEED_MORE;
    this.members.set(this.member, decodeSpan(buf, p, q, this.out[2] !== 0));
    return q;
  }

  private rowError(e: GatewayError, index: number): GatewayError {
    const side = SIDE_NAMES[this.side];
    return new GatewayError(e.code, `${side}[${index}]: ${e.detail}`, { ...e.context, side, index });
  }

  /** Decodes row `ref` (`i` original, `~i` rewritten). */
  decodeRow(ref: number): Record<string, unknown> {
    const [start, end, flags] = ref >= 0 ? this.rows.span(0, ref) : this.rows.span(1, ~ref);
    return decodeSpan(this.buf, start, end, flags !== 0) as Record<string, unknown>;
  }

  /** Exact equality of two rows whose hashes match but whose bytes differ: equal canonical text. */
  private sameCanonical(rep: number, ref: number): boolean {
    let canon = this.canonicalCache.get(rep);
    if (canon === undefined) {
      canon = canonicalText(this.decodeRow(rep));
      this.canonicalCache.set(rep, canon);
    }
    return canon === canonicalText(this.decodeRow(ref));
  }
}
