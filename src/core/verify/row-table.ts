/**
 * Counts distinct rows per side. Rows are identified by their 64-bit canonical hash, but a hash match is
 * only accepted after `sameRow` confirms it (byte-equal spans, else equal canonical text), so a collision
 * costs a probe, never a wrong answer. Open addressing in typed arrays: no per-row objects.
 */
export class RowTable {
  /** Per distinct row: hash lanes, a representative row reference, and its count on each side. */
  hashA = new Int32Array(1024);
  hashB = new Int32Array(1024);
  rep = new Int32Array(1024);
  count0 = new Int32Array(1024);
  count1 = new Int32Array(1024);
  distinct = 0;

  private slots = new Int32Array(2048);
  private slotHash = new Int32Array(2048);
  private mask = 2047;
  private readonly sameRow: (rep: number, row: number) => boolean;

  /**
   * @param sameRow exact equality of two rows given as references (`index` for original, `~index` for
   *   rewritten); called only when both hash lanes match.
   */
  constructor(sameRow: (rep: number, row: number) => boolean) {
    this.sameRow = sameRow;
  }

  /** Records one occurrence of row `ref` on `side` (0 original, 1 rewritten); returns its distinct id. */
  add(a: number, b: number, ref: number, side: 0 | 1): number {
    let i = a & this.mask;
    for (;;) {
      const s = this.slots[i]!;
      if (s === 0) break;
      const id = s - 1;
      if (this.slotHash[i] === a && this.hashB[id] === b && this.sameRow(this.rep[id]!, ref)) {
        if (side === 0) this.count0[id]!++;
        else this.count1[id]!++;
        return id;
      }
      i = (i + 1) & this.mask;
    }
    const id = this.distinct++;
    if (id === this.hashA.length) this.growRows();
    this.hashA[id] = a;
    this.hashB[id] = b;
    this.rep[id] = ref;
    this.count0[id] = side === 0 ? 1 : 0;
    this.count1[id] = side === 0 ? 0 : 1;
    this.slots[i] = id + 1;
    this.slotHash[i] = a;
    // Keep the load factor at or below 1/2 so probe sequences stay short.
    if (this.distinct * 2 > this.mask) this.rehash();
    return id;
  }

  private growRows(): void {
    const grow = (x: Int32Array): Int32Array<ArrayBuffer> => {
      const y = new Int32Array(x.length * 2);
      y.set(x);
      return y;
    };
    this.hashA = grow(this.hashA);
    this.hashB = grow(this.hashB);
    this.rep = grow(this.rep);
    this.count0 = grow(this.count0);
    this.count1 = grow(this.count1);
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    this.slots = new Int32Array(size);
    this.slotHash = new Int32Array(size);
    this.mask = size - 1;
    for (let id = 0; id < this.distinct; id++) {
      const a = this.hashA[id]!;
      let i = a & this.mask;
      while (this.slots[i] !== 0) i = (i + 1) & this.mask;
      this.slots[i] = id + 1;
      this.slotHash[i] = a;
    }
  }
}

/** The rows of one side as byte spans into the body, with their distinct id and scan flags. */
export class SideRows {
  start = new Uint32Array(1024);
  end = new Uint32Array(1024);
  id = new Int32Array(1024);
  flags = new Uint8Array(1024);
  length = 0;

  push(start: number, end: number, id: number, flags: number): void {
    const n = this.length;
    if (n === this.start.length) {
      const grow = <T extends Uint32Array | Int32Array | Uint8Array>(x: T, make: (n: number) => T): T => {
        const y = make(x.length * 2);
        y.set(x);
        return y;
      };
      this.start = grow(this.start, (k) => new Uint32Array(k));
      this.end = grow(this.end, (k) => new Uint32Array(k));
      this.id = grow(this.id, (k) => new Int32Array(k));
      this.flags = grow(this.flags, (k) => new Uint8Array(k));
    }
    this.start[n] = start;
    this.end[n] = end;
    this.id[n] = id;
    this.flags[n] = flags;
    this.length = n + 1;
  }
}
