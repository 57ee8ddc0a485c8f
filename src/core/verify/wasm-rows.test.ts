import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyJsonBody } from './compare.ts';
import { prng, renderRow, rowModel, scalarModel, valueModel } from './json-model.fixture.ts';
import { parseExact, referenceVerify } from './reference.ts';
import { RowLayout, scanRow } from './scan-row.ts';
import { BodyReader } from './body-reader.ts';
import { RowScanner } from './wasm-rows.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The JS scanner's result for one row text (the reference the WebAssembly scanner must reproduce). */
function jsScan(bytes: Uint8Array): { end: number; a: number; b: number; flags: number } {
  const out = new Int32Array(3);
  const end = scanRow(bytes, 0, bytes.length, 64, out, new RowLayout());
  return { end, a: out[0]!, b: out[1]!, flags: out[2]! };
}

function wasmScan(bytes: Uint8Array): { end: number; a: number; b: number; flags: number } {
  const s = new RowScanner(() => false);
  s.append(bytes);
  return s.scanOne(0, bytes.length);
}

describe('WebAssembly row scanner', () => {
  it('hashes every flat row exactly as the JS scanner does (any spelling, escapes, numbers)', () => {
    let handled = 0;
    fc.assert(
      fc.property(rowModel(scalarModel), fc.integer(), (row, seed) => {
        // A trailing byte: a number is only complete once a byte that cannot continue it has arrived.
        const bytes = enc(`${renderRow(row, prng(seed))} `);
        const w = wasmScan(bytes);
        if (w.end === -2) return; // left to the JS scanner (e.g. an escaped lone surrogate at the end)
        expect(w).toEqual(jsScan(bytes));
        handled++;
      }),
      { numRuns: 3000 },
    );
    expect(handled).toBeGreaterThan(2700);
  });

  it('hashes long strings as the JS scanner does wherever their escapes and non-ASCII fall', () => {
    // Plain runs of any length between special units, so the 8-byte steps meet them at every offset.
    const piece = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '~', '/'), maxLength: 19 }),
      fc.constantFrom('\\"', '\\\\', '\\n', '\\u00e9', '\\ud83d\\ude00', 'é', '李', '😀', '\\/'),
    );
    const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 15 }), (k, v, pad) => {
        const bytes = enc(`${' '.repeat(pad)}{"${k}x":"${v}","n":"${k}${v}"} `).subarray(pad);
        expect(wasmScan(bytes)).toEqual(jsScan(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it('hashes integers of 14 to 20 digits (with trailing zeros, negative) as the JS scanner does', () => {
    const digits = fc
      .integer({ min: 14, max: 20 })
      .chain((n) =>
        fc.tuple(
          fc.integer({ min: 1, max: 9 }),
          fc.array(fc.constantFrom(0, 0, 0, 1, 5, 9), { minLength: n - 1, maxLength: n - 1 }),
        ),
      );
    fc.assert(
      fc.property(digits, fc.boolean(), ([first, rest], neg) => {
        const bytes = enc(`{"n":${neg ? '-' : ''}${first}${rest.join('')}} `);
        expect(wasmScan(bytes)).toEqual(jsScan(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves nested values, invalid bytes and duplicate keys to the JS scanner', () => {
    for (const text of [
      '{"a":[1]}',
      '{"a":{"b":1}}',
      '{"a":tru}',
      '{"a":1,"a":2}',
      '{"a":"\u0001"}',
      '{"a" 1}',
    ]) {
      expect(wasmScan(enc(`${text} `)).end, text).toBe(-2);
    }
    const bad = new Uint8Array([...enc('{"a":"'), 0xff, ...enc('"} ')]);
    expect(wasmScan(bad).end).toBe(-2);
  });

  it('reports an incomplete row as such', () => {
    for (const text of ['{"a":1', '{"a":"xy', '{"a":12', '{"a', '{']) {
      expect(wasmScan(enc(text)).end, text).toBe(-1);
    }
  });

  it('keeps rows with colliding hashes apart when the canonical comparison says they differ', () => {
    const equal = new Set(['0,2', '2,0']);
    const s = new RowScanner((rep, ref) => equal.has(`${rep},${ref}`));
    s.append(enc('{"a":1}{"a":2}{"a":1.0}'));
    const a = s.addScanned(0, 0, 7, 21, 7, 7, 0);
    const b = s.addScanned(0, 7, 14, 21, 7, 7, 0);
    const c = s.addScanned(0, 14, 21, 21, 7, 7, 0);
    expect(a).not.toBe(b);
    expect(c).toBe(a);
    expect(s.counts(0)[a]).toBe(2);
    expect([...s.ids(0)]).toEqual([a, b, a]);
  });

  it('survives table growth with many distinct rows on both sides', () => {
    const s = new RowScanner(() => true);
    s.append(enc('{}'));
    for (let i = 0; i < 10_000; i++) s.addScanned(0, 0, 2, 2, Math.imul(i, 0x9e3779b1), i, 0);
    for (let i = 0; i < 10_000; i++) expect(s.addScanned(1, 0, 2, 2, Math.imul(i, 0x9e3779b1), i, 0)).toBe(i);
    expect(s.distinct()).toBe(10_000);
    expect(s.rowCount(0)).toBe(10_000);
    expect(s.counts(1)[9_999]).toBe(1);
  });
});

async function* chunks(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) {
    await Promise.resolve();
    yield bytes.subarray(i, i + size);
  }
}

/** verifyJsonBody on the whole buffer and in chunks (with and without the size hint) against the reference. */
async function agree(text: string): Promise<void> {
  const bytes = enc(text);
  const parsed = parseExact(text) as { original: unknown[]; rewritten: unknown[] };
  const want = referenceVerify(parsed.original, parsed.rewritten, { maxDifferences: 1000 });
  const options = { maxDifferences: 1000 };
  expect(await verifyJsonBody(bytes, options)).toEqual(want);
  expect(await verifyJsonBody(chunks(bytes, 997), options)).toEqual(want);
  expect(await verifyJsonBody(chunks(bytes, 4096), { ...options, expectedBytes: bytes.length })).toEqual(
    want,
  );
}

describe('batched rows (WebAssembly) agree with the reference', () => {
  const pad = 'x'.repeat(80); // rows alike in their first 64 bytes

  it('rows equal in their first bytes and length but not after (the prefix match is confirmed)', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => `{"pad":"${pad}","n":${100 + (i % 50)}}`);
    const rewritten = rows.map((r, i) => (i % 7 === 3 ? r.replace(/"n":1/, '"n":2') : r)).reverse();
    await agree(`{"original":[${rows.join(',')}],"rewritten":[${rewritten.join(',')}]}`);
  });

  it('flat and nested rows mixed, spelled differently on each side, across batches and chunks', async () => {
    const rnd = prng(5);
    const original: string[] = [];
    const rewritten: string[] = [];
    for (let i = 0; i < 2500; i++) {
      const nested = i % 9 === 0 ? `,"tags":[${i % 4},"t"]` : '';
      original.push(`{"id":${i},"v":${(i * 7) % 101}.5,"s":"é${i % 13}"${nested}}`);
      // Same values: other key order, number spelling and escapes; 1 in 50 really different.
      const v = i % 50 === 0 ? '9.75' : `${((i * 7) % 101) * 10 + 5}e-1`;
      rewritten.push(`{ "s" : "\\u00e9${i % 13}", "v":${v}, "id":${i}.0${nested}}`);
    }
    const order = rewritten.map((_, i) => i).sort(() => rnd() - 0.5);
    await agree(
      `{"original":[${original.join(',')}],"rewritten":[${order.map((i) => rewritten[i]).join(',')}]}`,
    );
  });

  it('duplicates on both sides count as a multiset', async () => {
    const a = Array.from({ length: 3000 }, (_, i) => `{"k":${i % 40},"pad":"${pad}"}`);
    const b = [...a.slice(1), a[0]!, a[5]!].reverse();
    await agree(`{"original":[${a.join(',')}],"rewritten":[${b.join(',')}]}`);
  });

  it('random rows, any values, many of them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowModel(valueModel), { minLength: 20, maxLength: 120 }),
        fc.integer(),
        async (rows, seed) => {
          const rnd = prng(seed);
          const o = rows.map((r) => renderRow(r, rnd));
          const r = rows.map((x) => renderRow(x, rnd)).reverse();
          await agree(`{"original":[${o.join(',')}],"rewritten":[${r.join(',')}]}`);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('compaction of the second side while it streams in', () => {
  const rows = Array.from({ length: 2000 }, (_, i) => `{"id":${i},"name":"row ${i}","v":${i % 17}.25}`);

  it('keeps about the first side only when the second repeats it', () => {
    const text = `{"original":[${rows.join(',')}],"rewritten":[${[...rows].reverse().join(',')}]}`;
    const bytes = enc(text);
    const reader = new BodyReader(64, true);
    reader.reserve(bytes.length);
    for (let i = 0; i < bytes.length; i += 4096) {
      reader.append(bytes.subarray(i, i + 4096));
      reader.run(reader.len, false);
    }
    reader.run(reader.len, true);
    expect(reader.rows.rowCount(1)).toBe(2000);
    expect(reader.len).toBeLessThan(bytes.length * 0.55);
    // Rows of the second side still decode (from the first side's identical bytes).
    expect(reader.decodeRow(~0)).toEqual({ id: 1999, name: 'row 1999', v: 10.25 });
  });

  it('reports error offsets in the body as sent', async () => {
    const text = `{"original":[${rows.join(',')}],"rewritten":[${rows.join(',')},{"id":1,"x":tru}]}`;
    const at = text.indexOf('tru}');
    const err = await verifyJsonBody(chunks(enc(text), 1000)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'malformed-json',
      context: { offset: at, side: 'rewritten', index: 2000 },
    });
  });

  it('decodes surplus and changed rows of the second side exactly', async () => {
    const changed = rows.map((r, i) => (i % 97 === 0 ? r.replace('.25', '.5') : r));
    await agree(
      `{"original":[${rows.join(',')}],"rewritten":[${[...changed, rows[3]!, rows[3]!].reverse().join(',')}]}`,
    );
  });
});

describe('instances', () => {
  it('serve bodies verified at the same time independently, and one after another after reuse', async () => {
    const bodyOf = (n: number, shift: number): string => {
      const rows = Array.from({ length: n }, (_, i) => `{"id":${i},"v":"${'x'.repeat(i % 50)}"}`);
      const other = rows.map((r, i) => (i % 10 === shift ? r.replace('"v":"', '"v":"y') : r)).reverse();
      return `{"original":[${rows.join(',')}],"rewritten":[${other.join(',')}]}`;
    };
    const texts = [bodyOf(3000, 1), bodyOf(500, 2), bodyOf(4000, 3)];
    const want = texts.map((t) => {
      const p = parseExact(t) as { original: unknown[]; rewritten: unknown[] };
      return referenceVerify(p.original, p.rewritten, { maxDifferences: 5 });
    });
    for (let round = 0; round < 2; round++) {
      const got = await Promise.all(
        texts.map((t, i) => verifyJsonBody(chunks(enc(t), 1000 + i * 300), { maxDifferences: 5 })),
      );
      expect(got).toEqual(want);
    }
  });
});
