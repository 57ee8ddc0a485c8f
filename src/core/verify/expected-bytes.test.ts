import { describe, expect, it } from 'vitest';
import { BodyReader } from './body-reader.ts';
import { verifyJsonBody } from './compare.ts';

// expectedBytes (the request's Content-Length) only sizes the buffer: whatever it says, a streamed body must
// give exactly the result of the same bytes passed whole, and the size limit must hold.

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function* chunks(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) {
    await Promise.resolve();
    yield bytes.slice(i, i + size);
  }
}

const rows = (n: number, changed: number): string =>
  Array.from(
    { length: n },
    (_, i) =>
      `{"id":${i},"big":${9007199254740993n + BigInt(i)},"s":"李雷 \\"q\\" 😀 ${i}",` +
      `"v":${i === changed ? '1.50' : '1.5'},"n":${i % 3 === 0 ? 'null' : i}}`,
  ).join(',');
const BODY = enc(`{"original":[${rows(300, -1)}],"rewritten":[${rows(300, 7)}],"key":["id"]}`);

describe('verifyJsonBody with expectedBytes', () => {
  it('gives the whole-buffer result for any hint and any chunking', async () => {
    const expected = await verifyJsonBody(BODY);
    expect(expected.summary.changed).toBe(0); // 1.50 = 1.5: equal by exact decimal value
    const n = BODY.length;
    const hints = [undefined, 0, -5, Number.NaN, 1, n - 1, n, n + 1, Math.floor(n / 2), 10 * n, 2 ** 53];
    for (const size of [1, 7, 64, 4096, n]) {
      for (const expectedBytes of hints) {
        const got = await verifyJsonBody(chunks(BODY, size), { expectedBytes, maxBodyBytes: 20 * n });
        expect(got, `chunk ${size}, hint ${String(expectedBytes)}`).toEqual(expected);
      }
    }
  });

  it('finds a difference split across chunk boundaries, whatever the hint', async () => {
    const body = enc(`{"original":[${rows(50, -1)}],"rewritten":[${rows(49, -1)},{"id":49,"x":1}]}`);
    for (const expectedBytes of [undefined, body.length, 10]) {
      const r = await verifyJsonBody(chunks(body, 13), { expectedBytes });
      expect(r.summary).toMatchObject({ missing: 1, extra: 1 });
      expect(r.differences[1]).toEqual({ row: 49, original: null, rewritten: { id: 49, x: 1 } });
    }
  });

  it('keeps the size limit whether the hint is right, understated, overstated or absent', async () => {
    const limit = BODY.length - 1;
    for (const expectedBytes of [undefined, BODY.length, 100, 10 * BODY.length, 2 ** 40]) {
      await expect(
        verifyJsonBody(chunks(BODY, 1000), { expectedBytes, maxBodyBytes: limit }),
      ).rejects.toMatchObject({ code: 'payload-too-large' });
    }
    const ok = await verifyJsonBody(chunks(BODY, 1000), {
      expectedBytes: 2 ** 40,
      maxBodyBytes: BODY.length,
    });
    expect(ok.summary.original_rows).toBe(300);
  });
});

/** Whether the chunk's memory was given away (its buffer is never a SharedArrayBuffer here). */
const detached = (chunk: Uint8Array): boolean => (chunk.buffer as ArrayBuffer).detached;

describe('verifyJsonBody with releaseChunks', () => {
  it('frees each chunk that is a whole ArrayBuffer once copied, leaves views alone, same result', async () => {
    const expected = await verifyJsonBody(BODY);
    for (const size of [1, 64, 4096, BODY.length]) {
      const given: Uint8Array[] = [];
      async function* handed(): AsyncIterable<Uint8Array> {
        for (let i = 0; i < BODY.length; i += size) {
          // Odd chunks are views into a larger buffer (as a pooled Buffer is): they must stay intact.
          const chunk = (given.length & 1) === 0 ? BODY.slice(i, i + size) : BODY.subarray(i, i + size);
          given.push(chunk);
          await Promise.resolve();
          yield chunk;
        }
      }
      const got = await verifyJsonBody(handed(), { expectedBytes: BODY.length, releaseChunks: true });
      expect(got, `chunk ${size}`).toEqual(expected);
      given.forEach((chunk, k) => {
        if ((k & 1) === 0) expect(detached(chunk), `chunk ${k} of ${size}`).toBe(true);
        else expect(chunk.length, `view ${k} of ${size}`).toBeGreaterThan(0);
      });
    }
    expect(detached(BODY)).toBe(false);
  });

  it('without it, the chunks are left as they are', async () => {
    const given: Uint8Array[] = [];
    async function* kept(): AsyncIterable<Uint8Array> {
      for (let i = 0; i < BODY.length; i += 1000) {
        given.push(BODY.slice(i, i + 1000));
        await Promise.resolve();
        yield given[given.length - 1]!;
      }
    }
    expect((await verifyJsonBody(kept())).summary.original_rows).toBe(300);
    expect(given.every((c) => !detached(c) && c.length > 0)).toBe(true);
  });
});

describe('BodyReader.reserve', () => {
  it('sizes the buffer once: chunks within it are copied in place, without reallocating', () => {
    const reader = new BodyReader(64);
    reader.reserve(BODY.length);
    const { buffer, byteOffset } = reader.buf;
    for (let i = 0; i < BODY.length; i += 1000) reader.append(BODY.subarray(i, i + 1000));
    // Same memory, same place: nothing was moved or reallocated.
    expect(reader.buf.buffer).toBe(buffer);
    expect(reader.buf.byteOffset).toBe(byteOffset);
    expect(reader.buf.length).toBe(BODY.length);
    expect(reader.buf).toEqual(BODY);
  });

  it('keeps bytes already appended and still grows past an understated size', () => {
    const reader = new BodyReader(64);
    reader.append(BODY.subarray(0, 10));
    reader.reserve(20);
    reader.reserve(5); // never shrinks
    reader.append(BODY.subarray(10));
    expect(reader.len).toBe(BODY.length);
    expect(reader.buf.subarray(0, reader.len)).toEqual(BODY);
  });
});
