import { fmix, mixWord } from './hash-mix.ts';
import { dataView } from './scan-string.ts';

/** Whether buf[a, a+len) and buf[b, b+len) hold the same bytes (four at a time). */
export function equalBytes(buf: Uint8Array, a: number, b: number, len: number): boolean {
  const dv = dataView(buf);
  const end = a + len;
  while (a + 4 <= end && dv.getInt32(a, true) === dv.getInt32(b, true)) {
    a += 4;
    b += 4;
  }
  while (a < end && buf[a] === buf[b]) {
    a++;
    b++;
  }
  return a === end;
}

const PREFIX_WORDS = 16;

/**
 * Remembers fully scanned rows by a hash of their first bytes, so that a later row that repeats one of them
 * byte for byte (the common case: the rewritten side holds the original rows, reordered) is recognised by one
 * comparison of bytes: identical bytes are the same valid row with the same canonical hash, so it needs
 * neither validation nor hashing. A cache: up to 4 probes per lookup, the oldest entry overwritten when all
 * are taken, and a miss only means the row is scanned normally. Lookups switch themselves off while they rarely hit (e.g. on the first
 * side, where rows are mostly distinct), and back on for each new side.
 */
export class RepeatIndex {
  /**
   * Stride 4, everything a hit needs in one cache line: [prefix hash, start of the row's bytes, its length
   * (+ 2^30 when the row holds an inexact number; 0 = empty slot), its distinct id].
   */
  private slots = new Int32Array(4 * 65536);
  private mask = 65535;
  private stored = 0;
  private tries = 0;
  private hits = 0;
  private pausedUntil = 0;

  /** Hash of up to 64 bytes at p, stopping after the word holding the first `}` (the end of a flat row). */
  static prefix(dv: DataView, p: number): number {
    let h = 0x5bd1e995;
    for (let i = 0; i < PREFIX_WORDS; i++, p += 4) {
      const x = dv.getInt32(p, true);
      h = mixWord(h, x);
      const y = x ^ 0x7d7d7d7d;
      if ((y - 0x01010101) & ~y & 0x80808080) break;
    }
    return fmix(h);
  }

  /** Bytes needed at p before `prefix` may be called. */
  static readonly NEEDS = PREFIX_WORDS * 4;

  /** Whether to look up the row with this index on the current side. */
  active(index: number): boolean {
    return index >= this.pausedUntil;
  }

  /** The slot offset remembered for `hash` (read it with start/length/inexact/id), or -1. */
  lookup(hash: number): number {
    for (let k = 0; k < 4; k++) {
      const i = ((hash + k) & this.mask) * 4;
      if (this.slots[i + 2] === 0) return -1;
      if (this.slots[i] === hash) return i;
    }
    return -1;
  }

  /** The slot of a remembered row whose bytes the bytes at p repeat exactly, or -1. */
  match(prefix: number, buf: Uint8Array, p: number, end: number): number {
    const slot = this.lookup(prefix);
    if (slot < 0) return -1;
    const len = this.length(slot);
    return p + len <= end && equalBytes(buf, this.start(slot), p, len) ? slot : -1;
  }

  start(slot: number): number {
    return this.slots[slot + 1]!;
  }

  length(slot: number): number {
    return this.slots[slot + 2]! & 0x3fffffff;
  }

  inexact(slot: number): number {
    return this.slots[slot + 2]! >>> 30;
  }

  id(slot: number): number {
    return this.slots[slot + 3]!;
  }

  /** Counts a lookup; after 256 of them with under a quarter hitting, pauses lookups for 4096 rows. */
  outcome(index: number, hit: boolean): void {
    this.tries++;
    if (hit) this.hits++;
    if (this.tries === 256) {
      if (this.hits < 64) this.pausedUntil = index + 4096;
      this.tries = 0;
      this.hits = 0;
    }
  }

  /** A new side starts: look up again from its first row. */
  newSide(): void {
    this.pausedUntil = 0;
    this.tries = 0;
    this.hits = 0;
  }

  /** Remembers a fully scanned row (rows longer than 1 GiB are not remembered). */
  remember(hash: number, start: number, length: number, inexact: number, id: number): void {
    if (length >= 0x40000000) return;
    if (this.put(hash, start, length | (inexact << 30), id) && ++this.stored * 2 > this.mask) this.grow();
  }

  /** Stores an entry; returns whether it took an empty slot. */
  private put(hash: number, start: number, lengthAndFlag: number, id: number): boolean {
    let i = (hash & this.mask) * 4;
    let empty = false;
    for (let k = 0; k < 4; k++) {
      const j = ((hash + k) & this.mask) * 4;
      if (this.slots[j + 2] === 0 || this.slots[j] === hash) {
        empty = this.slots[j + 2] === 0;
        i = j;
        break;
      }
    }
    this.slots[i] = hash;
    this.slots[i + 1] = start;
    this.slots[i + 2] = lengthAndFlag;
    this.slots[i + 3] = id;
    return empty;
  }

  private grow(): void {
    const old = this.slots;
    this.mask = this.mask * 2 + 1;
    this.slots = new Int32Array((this.mask + 1) * 4);
    this.stored = 0;
    for (let i = 0; i < old.length; i += 4) {
      if (old[i + 2] !== 0 && this.put(old[i]!, old[i + 1]!, old[i + 2]!, old[i + 3]!)) this.stored++;
    }
  }
}
