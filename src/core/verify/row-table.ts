/**
 * Counts distinct rows per side. Rows are identified by their 64-bit canonical hash, but a hash match is
 * only accepted after `sameRow` confirms it (byte-equal spans, else equal canonical text), so a collision
 * costs a probe, never a wrong answer. Open addressing in typed arrays, fields of one entry side by side
 * (one cache miss per probe rather than one per field): no per-row objects.
 */
export class RowTable {
  /** Per distinct row, stride 2: [hash lane B, representative row reference]. */
  meta = new Int32Array(2048);
  /** Per distinct row: occurrences on each side (dense arrays, so counting stays in cache). */
  counts: [Int32Array, Int32Array] = [new Int32Array(1024), new Int32Array(1024)];
  distinct = 0;

  /** Per slot, stride 2: [hash lane A, distinct id + 1 (0 = empty)]. */
  private slots = new Int32Array(4096);
  private mask = 2047;
  private readonly sameRow: (rep: number, row: number) => boolean;

  /**
   * @param sameRow exact equality of two rows given as references (`index` for original, `~index` for
   *   rewritten); called only when both hash lanes match.
   */
  constructor(sameRow: (rep: number, row: number) => boolean) {
    this.sameRow = sameRow;
  }

  count(id: number, side: 0 | 1): number {
    return this.counts[side][id]!;
  }

  /** Records one more occurrence of distinct row `id` on `side`. */
  bump(id: number, side: 0 | 1): void {
    this.counts[side][id]!++;
  }

  /** Records one occurrence of row `ref` on `side` (0 original, 1 rewritten); returns its distinct id. */
  add(a: number, b: number, ref: number, side: 0 | 1): number {
    const slots = this.slots;
    const meta = this.meta;
    let i = a & this.mask;
    for (;;) {
      const s = slots[2 * i + 1]!;
      if (s === 0) break;
      const id = s - 1;
      if (slots[2 * i] === a && meta[id * 2] === b && this.sameRow(meta[id * 2 + 1]!, ref)) {
        this.counts[side][id]!++;
        return id;
      }
      i = (i + 1) & this.mask;
    }
    const id = this.distinct++;
    if (id === this.counts[0].length) {
      const grow = (x: Int32Array, n: number): Int32Array<ArrayBuffer> => {
        const y = new Int32Array(n);
        y.set(x);
        return y;
      };
      this.meta = grow(this.meta, this.meta.length * 2);
      this.counts = [grow(this.counts[0], id * 2), grow(this.counts[1], id * 2)];
    }
    this.meta[id * 2] = b;
    this.meta[id * 2 + 1] = ref;
    this.counts[side][id] = 1;
    slots[2 * i] = a;
    slots[2 * i + 1] = id + 1;
    // Keep the load factor at or below 1/2 so probe sequences stay short.
    if (this.distinct * 2 > this.mask) this.rehash();
    return id;
  }

  private rehash(): void {
    const old = this.slots;
    const size = (this.mask + 1) * 2;
    const slots = new Int32Array(size * 2);
    const mask = size - 1;
    for (let j = 0; j < old.length; j += 2) {
      if (old[j + 1] === 0) continue;
      let i = old[j]! & mask;
      while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
      slots[2 * i] = old[j]!;
      slots[2 * i + 1] = old[j + 1]!;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** The rows of one side: byte spans into the body (stride 2: start, end), distinct ids and scan flags. */
export class SideRows {
  span = new Uint32Array(2048);
  id = new Int32Array(1024);
  flags = new Uint8Array(1024);
  length = 0;

  start(i: number): number {
    return this.span[2 * i]!;
  }

  end(i: number): number {
    return this.span[2 * i + 1]!;
  }

  push(start: number, end: number, flags: number): void {
    const n = this.length;
    if (n === this.id.length) {
      const span = new Uint32Array(this.span.length * 2);
      span.set(this.span);
      this.span = span;
      const id = new Int32Array(n * 2);
      id.set(this.id);
      this.id = id;
      const f = new Uint8Array(n * 2);
      f.set(this.flags);
      this.flags = f;
    }
    this.span[2 * n] = start;
    this.span[2 * n + 1] = end;
    this.flags[n] = flags;
    this.length = n + 1;
  }
}
