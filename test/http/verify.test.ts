import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ SQLGATE_MAX_BODY_BYTES: String(8 * 1024 * 1024) });
});
afterAll(async () => gw.close());

const verify = (payload: string, headers: Record<string, string> = gw.auth) =>
  gw.app.inject({
    method: 'POST',
    url: '/verify',
    headers: { 'content-type': 'application/json', ...headers },
    payload,
  });

type Problem = { type: string; status: number; detail: string; side?: string; index?: number };

describe('POST /verify — happy', () => {
  it('equal multisets in another order, numbers by exact value', async () => {
    const res = await verify(
      JSON.stringify({
        original: [
          { a: 1, b: 'x' },
          { a: 2, b: null },
        ],
        rewritten: [
          { b: null, a: 2.0 },
          { b: 'x', a: 1 },
        ],
      }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      equal: true,
      differences: [],
      summary: { original_rows: 2, rewritten_rows: 2, missing: 0, extra: 0, changed: 0 },
      truncated: false,
    });
  });
  it('null differs from absent; a missing row is reported with rewritten: null', async () => {
    const res = await verify('{"original":[{"a":1,"b":null}],"rewritten":[{"a":1}]}');
    const body = res.json<{ equal: boolean; differences: unknown[] }>();
    expect(body.equal).toBe(false);
    expect(body.differences).toEqual([
      { row: 0, original: { a: 1, b: null }, rewritten: null },
      { row: 0, original: null, rewritten: { a: 1 } },
    ]);
  });
  it('keeps integers beyond 2^53 exact in the comparison and in the response', async () => {
    const res = await verify('{"original":[{"id":9007199254740993}],"rewritten":[{"id":9007199254740992}]}');
    expect(res.json<{ equal: boolean }>().equal).toBe(false);
    expect(res.body).toContain('9007199254740993');
    expect(res.body).toContain('9007199254740992');
  });
  it('pairs rows by key, with tolerance and max_differences', async () => {
    const res = await verify(
      JSON.stringify({
        original: [
          { k: 1, v: 10 },
          { k: 2, v: 20 },
          { k: 3, v: 30 },
        ],
        rewritten: [
          { k: 3, v: 30.0000001 },
          { k: 2, v: 21 },
          { k: 1, v: 10 },
        ],
        key: ['k'],
        tolerance: { abs: 0.001 },
        max_differences: 5,
      }),
    );
    const body = res.json<{ equal: boolean; differences: unknown[]; summary: Record<string, number> }>();
    expect(body.equal).toBe(false);
    expect(body.differences).toEqual([
      { row: 1, original: { k: 2, v: 20 }, rewritten: { k: 2, v: 21 }, rewritten_row: 1 },
    ]);
    expect(body.summary.changed).toBe(1);
  });
});

describe('POST /verify — bad input', () => {
  const cases: Array<[string, string, number, RegExp]> = [
    ['original not an array', '{"original":{},"rewritten":[]}', 422, /original/],
    ['a row that is not an object', '{"original":[{"a":1},2],"rewritten":[]}', 422, /original/],
    ['rewritten missing', '{"original":[]}', 422, /rewritten/],
    ['body not an object', '[1,2]', 422, /./],
    ['invalid JSON', '{"original":[{"a":1,}],"rewritten":[]}', 400, /./],
    ['truncated body', '{"original":[{"a":1}],"rewritten":[{"a"', 400, /./],
    [
      '100k nested arrays',
      `{"original":[{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}],"rewritten":[]}`,
      422,
      /./,
    ],
    ['empty body', '', 400, /./],
  ];
  it.each(cases)('%s → %i problem', async (_name, payload, status, detail) => {
    const res = await verify(payload);
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json<Problem>();
    expect(body.status).toBe(status);
    expect(body.detail).toMatch(detail);
  });
  it('names the side and index of a bad row', async () => {
    const body = (await verify('{"original":[],"rewritten":[{"a":1},{"a":2},"x"]}')).json<Problem>();
    expect(body.side).toBe('rewritten');
    expect(body.index).toBe(2);
  });
  it('413 past the body limit, and keeps serving', async () => {
    const huge = `{"original":[${Array.from({ length: 200_000 }, () => '{"s":"0123456789012345678901234567890123456789"}').join(',')}],"rewritten":[]}`;
    const res = await verify(huge);
    expect(res.statusCode).toBe(413);
    expect((await verify('{"original":[],"rewritten":[]}')).statusCode).toBe(200);
  });
  it('a huge string is compared, not a crash', async () => {
    const s = 'x'.repeat(3_000_000);
    const res = await verify(JSON.stringify({ original: [{ s }], rewritten: [{ s }] }));
    expect(res.json<{ equal: boolean }>().equal).toBe(true);
  });
  it('401 without a key; 415 for another media type', async () => {
    expect((await verify('{"original":[],"rewritten":[]}', {})).statusCode).toBe(401);
    const res = await gw.app.inject({
      method: 'POST',
      url: '/verify',
      headers: { ...gw.auth, 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(res.statusCode).toBe(415);
  });
});

describe('POST /verify over a real socket', () => {
  it('streams a large body while other requests are served', async () => {
    const address = await gw.app.listen({ host: '127.0.0.1', port: 0 });
    const rows = Array.from({ length: 40_000 }, (_, i) => ({
      id: i,
      name: `row ${i}`,
      amount: i / 7,
      ok: i % 2 === 0,
      note: null,
    }));
    const body = JSON.stringify({ original: rows, rewritten: [...rows].reverse() });
    const big = fetch(`${address}/verify`, {
      method: 'POST',
      headers: { ...gw.auth, 'content-type': 'application/json' },
      body,
    });
    const health = await fetch(`${address}/healthz`);
    expect(health.status).toBe(200);
    const res = await big;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { equal: boolean }).equal).toBe(true);
  });
});
