import { GatewayError, isGatewayError } from '../errors.ts';
import { canonicalText } from './canonical.ts';
import { decodeSpan } from './decode.ts';
import { RowTable, SideRows } from './row-table.ts';
import { equalBytes, RepeatIndex } from './repeat-index.ts';
import { RowLayout, scanRow } from './scan-row.ts';
import { dataView, isValueStart, isWs, malformed, scanString } from './scan-string.ts';
import { NEED_MORE, scanValue } from './scanner.ts';

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
 * scanned once, hashed and counted in the RowTable as soon as its bytes are there; other members are decoded
 * as JSON values. All bytes are kept (in `buf`) so unmatched rows can be decoded afterwards.
 */
export class BodyReader {
  buf: Uint8Array = new Uint8Array(0);
  len = 0;
  readonly sides: [SideRows, SideRows] = [new SideRows(), new SideRows()];
  readonly seen: [boolean, boolean] = [false, false];
  readonly members = new Map<string, unknown>();
  readonly table: RowTable;

  private pos = 0;
  private state = B_START;
  private side: 0 | 1 = 0;
  private member = '';
  /** A value that did not fit is rescanned only once the buffer has doubled past it (linear total work). */
  private retryAt = 0;
  private readonly out = new Int32Array(3);
  private readonly maxDepth: number;
  private readonly canonicalCache = new Map<number, string>();
  private readonly layout = new RowLayout();
  private readonly repeats = new RepeatIndex();

  constructor(maxDepth: number) {
    this.maxDepth = maxDepth;
    this.table = new RowTable((rep, row) => this.sameRow(rep, row));
  }

  /**
   * Allocates room for `bytes` up front (e.g. from Content-Length) so each chunk is copied once: growing by
   * doubling costs ~3x the copying and page faults, and holds old + new buffer (up to 3x the body) while
   * copying. Only a hint: a longer body still grows, a shorter one uses part of it. Untouched pages of a
   * large zeroed allocation are not resident, so an overstated hint costs address space, not memory.
   */
  reserve(bytes: number): void {
    if (bytes <= this.buf.length) return;
    let next: Uint8Array;
    try {
      next = new Uint8Array(bytes);
    } catch {
      return; // RangeError beyond the engine's limit: grow as chunks arrive instead
    }
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Appends a chunk, copying into a doubling buffer (once, if reserve() sized it). */
  append(chunk: Uint8Array): void {
    const need = this.len + chunk.length;
    if (need > this.buf.length) {
      const next = new Uint8Array(Math.max(need, this.buf.length * 2, 65536));
      next.set(this.buf.subarray(0, this.len));
      this.buf = next;
    }
    this.buf.set(chunk, this.len);
    this.len = need;
  }

  /** Uses `bytes` as the whole body without copying. */
  adopt(bytes: Uint8Array): void {
    this.buf = bytes;
    this.len = bytes.length;
  }

  /** Processes bytes up to `end`; with `final`, the body ends there and anything incomplete is an error. */
  run(end: number, final: boolean): void {
    if (!final && end < this.retryAt) return;
    const buf = this.buf;
    let p = this.pos;
    for (;;) {
      while (p < end && isWs(buf[p]!)) p++;
      this.pos = p;
      if (p >= end) break;
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
            this.repeats.newSide();
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
          break;
        case B_ROW_FIRST:
        case B_ROW: {
          if (c === 0x5d && this.state === B_ROW_FIRST) {
            this.state = B_AFTER_MEMBER;
            p++;
            break;
          }
          const q = this.row(p, end);
          if (q === NEED_MORE) return this.wait(p, end, final);
          this.state = B_AFTER_ROW;
          p = q;
          break;
        }
        case B_AFTER_ROW:
          if (c === 0x2c) this.state = B_ROW;
          else if (c === 0x5d) this.state = B_AFTER_MEMBER;
          else throw this.rowError(malformed('expected , or ]', p), this.sides[this.side].length);
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
        ? this.rowError(e, this.sides[this.side].length)
        : e;
    }
    this.pos = p;
    this.retryAt = p + 2 * (end - p);
  }

  private row(p: number, end: number): number {
    const rows = this.sides[this.side];
    const index = rows.length;
    const c = this.buf[p]!;
    if (c !== 0x7b) {
      if (!isValueStart(c)) throw this.rowError(malformed('unexpected character', p), index);
      throw new GatewayError('invalid-verify-input', `${SIDE_NAMES[this.side]}[${index}] is not an object`, {
        side: SIDE_NAMES[this.side],
        index,
      });
    }
    const buf = this.buf;
    let prefix = 0;
    const hashable = p + RepeatIndex.NEEDS <= end;
    if (hashable) {
      const dv = dataView(buf);
      prefix = RepeatIndex.prefix(dv, p);
      if (this.repeats.active(index)) {
        const q = this.repeatOf(prefix, p, end);
        this.repeats.outcome(index, q >= 0);
        if (q >= 0) return q;
      }
    }
    let q: number;
    try {
      q = scanRow(buf, p, end, this.maxDepth, this.out, this.layout);
    } catch (e) {
      throw isGatewayError(e) ? this.rowError(e, index) : e;
    }
    if (q === NEED_MORE) return NEED_MORE;
    rows.push(p, q, this.out[2]!);
    rows.id[index] = this.table.add(this.out[0]!, this.out[1]!, this.side === 0 ? index : ~index, this.side);
    if (hashable) this.repeats.remember(prefix, p, q - p, this.out[2]!, rows.id[index]);
    return q;
  }

  /** If the row at p repeats a remembered row byte for byte, records it as that row; returns its end or -1. */
  private repeatOf(prefix: number, p: number, end: number): number {
    const slot = this.repeats.match(prefix, this.buf, p, end);
    if (slot < 0) return -1;
    const rows = this.sides[this.side];
    const id = this.repeats.id(slot);
    const q = p + this.repeats.length(slot);
    rows.push(p, q, this.repeats.inexact(slot));
    rows.id[rows.length - 1] = id;
    this.table.bump(id, this.side);
    return q;
  }

  private other(p: number, end: number): number {
    let q: number;
    try {
      q = scanValue(this.buf, p, end, this.maxDepth, this.out);
    } catch (e) {
      if (!isGatewayError(e)) throw e;
      throw new GatewayError(e.code, `${this.member}: ${e.detail}`, { ...e.context, field: this.member });
    }
    if (q === NEED_MORE) return NEED_MORE;
    this.members.set(this.member, decodeSpan(this.buf, p, q, this.out[2] !== 0));
    return q;
  }

  private rowError(e: GatewayError, index: number): GatewayError {
    const side = SIDE_NAMES[this.side];
    return new GatewayError(e.code, `${side}[${index}]: ${e.detail}`, { ...e.context, side, index });
  }

  /** Decodes row `ref` (`i` original, `~i` rewritten). */
  decodeRow(ref: number): Record<string, unknown> {
    const rows = ref >= 0 ? this.sides[0] : this.sides[1];
    const i = ref >= 0 ? ref : ~ref;
    return decodeSpan(this.buf, rows.start(i), rows.end(i), rows.flags[i] !== 0) as Record<string, unknown>;
  }

  /** Exact equality of two rows whose hashes match: equal bytes, else equal canonical text. */
  private sameRow(rep: number, ref: number): boolean {
    const ra = rep >= 0 ? this.sides[0] : this.sides[1];
    const ia = rep >= 0 ? rep : ~rep;
    const rb = ref >= 0 ? this.sides[0] : this.sides[1];
    const ib = ref >= 0 ? ref : ~ref;
    const len = ra.end(ia) - ra.start(ia);
    if (len === rb.end(ib) - rb.start(ib) && equalBytes(this.buf, ra.start(ia), rb.start(ib), len))
      return true;
    let canon = this.canonicalCache.get(rep);
    if (canon === undefined) {
      canon = canonicalText(this.decodeRow(rep));
      this.canonicalCache.set(rep, canon);
    }
    return canon === canonicalText(this.decodeRow(ref));
  }
}
