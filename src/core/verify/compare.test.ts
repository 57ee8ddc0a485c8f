import { describe, expect, it } from 'vitest';
import { verifyJsonBody, verifyRows } from './compare.ts';
import { rawJson } from './raw-json.ts';
import type { VerifyOptions, VerifyResult } from './types.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const verify = (
  original: string,
  rewritten: string,
  extra = '',
  options?: VerifyOptions,
): Promise<VerifyResult> =>
  verifyJsonBody(enc(`{"original":${original},"rewritten":${rewritten}${extra}}`), options);
const isEqual = async (original: string, rewritten: string, extra = ''): Promise<boolean> =>
  (await verify(original, rewritten, extra)).equal;

describe('POST /verify contract rules', () => {
  it('ignores row order', async () => {
    const r = await verify('[{"a":1},{"a":2},{"a":3}]', '[{"a":3},{"a":1},{"a":2}]');
    expect(r).toEqual({
      equal: true,
      differences: [],
      summary: { original_rows: 3, rewritten_rows: 3, missing: 0, extra: 0, changed: 0 },
      truncated: false,
    });
  });

  it('counts duplicates as a multiset', async () => {
    expect(await isEqual('[{"a":1},{"a":1},{"a":2}]', '[{"a":1},{"a":2},{"a":2}]')).toBe(false);
    expect(await isEqual('[{"a":1},{"a":1}]', '[{"a":1},{"a":1}]')).toBe(true);
  });

  it('ignores key order, also in nested objects', async () => {
    expect(
      await isEqual('[{"a":1,"b":{"x":1,"y":[{"p":1,"q":2}]}}]', '[{"b":{"y":[{"q":2,"p":1}],"x":1},"a":1}]'),
    ).toBe(true);
  });

  it('requires key names to match exactly', async () => {
    expect(await isEqual('[{"a":1}]', '[{"A":1}]')).toBe(false);
    expect(await isEqual('[{"a":1}]', '[{"a ":1}]')).toBe(false);
    expect(await isEqual('[{"a":1}]', '[{"a":1,"b":2}]')).toBe(false);
  });

  it('distinguishes a null value from an absent key', async () => {
    expect(await isEqual('[{"a":1,"b":null}]', '[{"a":1}]')).toBe(false);
  });

  it('compares numbers by exact decimal value', async () => {
    expect(await isEqual('[{"n":1}]', '[{"n":1.0}]')).toBe(true);
    expect(await isEqual('[{"n":1}]', '[{"n":1e0}]')).toBe(true);
    expect(await isEqual('[{"n":100}]', '[{"n":1E+2}]')).toBe(true);
    expect(await isEqual('[{"n":0.05}]', '[{"n":5e-2}]')).toBe(true);
    expect(await isEqual('[{"n":-0}]', '[{"n":0.0}]')).toBe(true);
    expect(await isEqual('[{"n":9007199254740993}]', '[{"n":9007199254740992}]')).toBe(false);
    expect(await isEqual('[{"n":0.1}]', '[{"n":0.10000000000000000555}]')).toBe(false);
    expect(await isEqual('[{"n":1e400}]', '[{"n":2e400}]')).toBe(false);
    expect(await isEqual('[{"n":1e400}]', '[{"n":10e399}]')).toBe(true);
  });

  it('distinguishes types: true ≠ 1, "1" ≠ 1, [] ≠ {}', async () => {
    expect(await isEqual('[{"a":true}]', '[{"a":1}]')).toBe(false);
    expect(await isEqual('[{"a":"1"}]', '[{"a":1}]')).toBe(false);
    expect(await isEqual('[{"a":[]}]', '[{"a":{}}]')).toBe(false);
    expect(await isEqual('[{"a":null}]', '[{"a":false}]')).toBe(false);
  });

  it('compares strings exactly after unescaping', async () => {
    expect(await isEqual('[{"s":"\\u0041\\n\\/"}]', '[{"s":"A\\u000a/"}]')).toBe(true);
    expect(await isEqual('[{"s":"\\ud83d\\ude00"}]', '[{"s":"😀"}]')).toBe(true);
    expect(await isEqual('[{"s":"a"}]', '[{"s":"A"}]')).toBe(false);
    expect(await isEqual('[{"s":"é"}]', '[{"s":"e\\u0301"}]')).toBe(false);
    expect(await isEqual('[{"s":"\\u0000"}]', '[{"s":""}]')).toBe(false);
  });

  it('compares arrays in order and recursively', async () => {
    expect(await isEqual('[{"a":[1,[2,3]]}]', '[{"a":[1.0,[2,3]]}]')).toBe(true);
    expect(await isEqual('[{"a":[1,2]}]', '[{"a":[2,1]}]')).toBe(false);
    expect(await isEqual('[{"a":[[1],[]]}]', '[{"a":[[],[1]]}]')).toBe(false);
  });

  it('reports a differing row as two one-sided entries without key', async () => {
    const r = await verify('[{"a":1},{"a":2}]', '[{"a":2},{"a":3}]');
    expect(r.differences).toEqual([
      { row: 0, original: { a: 1 }, rewritten: null },
      { row: 1, original: null, rewritten: { a: 3 } },
    ]);
    expect(r.summary).toEqual({ original_rows: 2, rewritten_rows: 2, missing: 1, extra: 1, changed: 0 });
  });

  it('reports the trailing surplus occurrences of a repeated row', async () => {
    const r = await verify('[{"a":1},{"a":2},{"a":1},{"a":1}]', '[{"a":1},{"a":2}]');
    expect(r.differences.map((d) => d.row)).toEqual([2, 3]);
    const s = await verify('[{"a":1}]', '[{"a":1},{"a":2},{"a":1}]');
    expect(s.differences).toEqual([
      { row: 1, original: null, rewritten: { a: 2 } },
      { row: 2, original: null, rewritten: { a: 1 } },
    ]);
  });

  it('orders entries: original rows by row, then rewritten-only by row', async () => {
    const r = await verify('[{"a":9},{"a":1},{"a":8}]', '[{"a":7},{"a":1},{"a":6}]');
    expect(r.differences.map((d) => [d.row, d.original === null])).toEqual([
      [0, false],
      [2, false],
      [0, true],
      [2, true],
    ]);
  });

  it('pairs rows by key: one entry with both rows and rewritten_row', async () => {
    const r = await verify(
      '[{"id":1,"v":1},{"id":2,"v":2},{"id":3,"v":3}]',
      '[{"id":4,"v":4},{"v":2,"id":2},{"id":1,"v":9}]',
      ',"key":["id"]',
    );
    expect(r.differences).toEqual([
      { row: 0, original: { id: 1, v: 1 }, rewritten: { id: 1, v: 9 }, rewritten_row: 2 },
      { row: 2, original: { id: 3, v: 3 }, rewritten: null },
      { row: 0, original: null, rewritten: { id: 4, v: 4 } },
    ]);
    expect(r.summary).toEqual({ original_rows: 3, rewritten_rows: 3, missing: 1, extra: 1, changed: 1 });
  });

  it('pairs duplicate keys in occurrence order; an absent key column pairs only with absent', async () => {
    const r = await verify(
      '[{"id":1,"v":1},{"id":1,"v":2},{"v":5}]',
      '[{"id":1,"v":3},{"id":1,"v":4},{"id":null,"v":6},{"v":7}]',
      ',"key":["id"]',
    );
    expect(r.differences.map((d) => [d.row, d.rewritten_row ?? null])).toEqual([
      [0, 0],
      [1, 1],
      [2, 3],
      [2, null],
    ]);
    expect(r.summary.changed).toBe(3);
    expect(r.summary.extra).toBe(1);
  });

  it('matches numbers within tolerance {abs, rel}', async () => {
    expect(await isEqual('[{"x":1.0}]', '[{"x":1.05}]', ',"tolerance":{"abs":0.1}')).toBe(true);
    expect(await isEqual('[{"x":1.0}]', '[{"x":1.2}]', ',"tolerance":{"abs":0.1}')).toBe(false);
    expect(await isEqual('[{"x":1000}]', '[{"x":1001}]', ',"tolerance":{"rel":0.001}')).toBe(true);
    expect(await isEqual('[{"x":1000}]', '[{"x":1002}]', ',"tolerance":{"rel":0.001}')).toBe(false);
    expect(
      await isEqual('[{"x":[1,{"y":2}]}]', '[{"x":[1.01,{"y":2.01}]}]', ',"tolerance":{"abs":0.02}'),
    ).toBe(true);
    expect(await isEqual('[{"x":1,"s":"a"}]', '[{"x":1,"s":"b"}]', ',"tolerance":{"abs":10}')).toBe(false);
    expect(await isEqual('[{"x":1}]', '[{"x":"1"}]', ',"tolerance":{"abs":10}')).toBe(false);
  });

  it('applies tolerance to key-paired rows', async () => {
    const r = await verify(
      '[{"id":1,"x":1.0},{"id":2,"x":5}]',
      '[{"id":1,"x":1.001},{"id":2,"x":6}]',
      ',"key":["id"],"tolerance":{"abs":0.01}',
    );
    expect(r.summary).toEqual({ original_rows: 2, rewritten_rows: 2, missing: 0, extra: 0, changed: 1 });
    expect(r.differences).toEqual([
      { row: 1, original: { id: 2, x: 5 }, rewritten: { id: 2, x: 6 }, rewritten_row: 1 },
    ]);
  });

  it('truncates at max_differences but keeps exact counts', async () => {
    const r = await verify('[{"a":1},{"a":2},{"a":3}]', '[]', ',"max_differences":2');
    expect(r.differences.map((d) => d.row)).toEqual([0, 1]);
    expect(r.truncated).toBe(true);
    expect(r.summary.missing).toBe(3);
    const zero = await verify('[{"a":1}]', '[{"a":2}]', ',"max_differences":0');
    expect(zero).toMatchObject({
      equal: false,
      differences: [],
      truncated: true,
      summary: { missing: 1, extra: 1 },
    });
    const exact = await verify('[{"a":1}]', '[]', ',"max_differences":1');
    expect(exact.truncated).toBe(false);
  });

  it('defaults max_differences to 100; the body overrides the caller default', async () => {
    const rows = JSON.stringify(Array.from({ length: 150 }, (_, i) => ({ i })));
    expect((await verify(rows, '[]')).differences).toHaveLength(100);
    expect((await verify(rows, '[]', '', { maxDifferences: 3 })).differences).toHaveLength(3);
    expect(
      (await verify(rows, '[]', ',"max_differences":5', { maxDifferences: 3 })).differences,
    ).toHaveLength(5);
  });

  it('accepts members in any order and ignores unknown members', async () => {
    const body =
      '{"max_differences":1,"rewritten":[{"a":2}],"note":{"x":[1,2]},"key":["a"],"original":[{"a":1}]}';
    const r = await verifyJsonBody(enc(body));
    expect(r.summary).toMatchObject({ missing: 1, extra: 1, changed: 0 });
    expect(r.differences).toHaveLength(1);
  });

  it('returns numbers beyond double precision unrounded', async () => {
    const r = await verify(
      '[{"big":12345678901234567890,"f":0.1000000000000000055511151231257827,"n":1.5}]',
      '[]',
    );
    expect(JSON.stringify(r.differences[0]!.original)).toBe(
      '{"big":12345678901234567890,"f":0.1000000000000000055511151231257827,"n":1.5}',
    );
  });

  it('handles empty sides', async () => {
    expect(await isEqual('[]', '[]')).toBe(true);
    expect((await verify('[]', '[{}]')).differences).toEqual([{ row: 0, original: null, rewritten: {} }]);
  });
});

describe('repeated rows (byte-identical rows are recognised without rescanning)', () => {
  const pad = 'x'.repeat(80);
  const row = (i: number, v: string): string =>
    `{"pad":"${pad}","i":${i},"big":12345678901234567890${i},"v":${v}}`;

  it('matches shuffled identical rows and still reports rows that differ after a shared prefix', async () => {
    const n = 1500;
    const original = Array.from({ length: n }, (_, i) => row(i, '1'));
    const rewritten = original.map((r, i) => (i % 100 === 7 ? row(i, '2') : r)).reverse();
    const r = await verify(`[${original.join(',')}]`, `[${rewritten.join(',')}]`);
    expect(r.summary).toEqual({ original_rows: n, rewritten_rows: n, missing: 15, extra: 15, changed: 0 });
    expect(r.differences.filter((d) => d.original !== null).map((d) => d.row)).toEqual(
      Array.from({ length: 15 }, (_, k) => k * 100 + 7),
    );
    // The repeated row keeps its exact numbers when decoded for the response.
    expect(JSON.stringify(r.differences[0]!.original)).toContain('"big":123456789012345678907');
  });

  it('counts repeats within one side as a multiset', async () => {
    const a = row(1, '1');
    const b = row(2, '1');
    const many = (x: string, k: number): string[] => Array.from({ length: k }, () => x);
    const r = await verify(
      `[${[...many(a, 600), ...many(b, 3)].join(',')}]`,
      `[${[...many(b, 2), ...many(a, 601)].join(',')}]`,
    );
    expect(r.summary).toMatchObject({ missing: 1, extra: 1 });
    expect(r.differences.map((d) => d.row)).toEqual([602, 602]);
  });
});

describe('verifyRows (rows already in memory)', () => {
  it('compares parsed rows with the same semantics, raw JSON numbers included', async () => {
    const r = await verifyRows(
      [{ a: 1, b: rawJson('9007199254740993') }, { a: 2 }],
      [{ a: 2 }, { b: rawJson('9007199254740992'), a: 1.0 }],
    );
    expect(r.summary).toMatchObject({ missing: 1, extra: 1 });
    expect(JSON.stringify(r.differences[0]!.original)).toBe('{"a":1,"b":9007199254740993}');
    expect((await verifyRows([{ x: 'é' }], [{ x: 'é' }])).equal).toBe(true);
  });
});
