import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

// The route sizes its body buffer from Content-Length: these tests send real requests with and without it
// (chunked), within and over the limit, to check that the header is only a hint and the limit still holds.

const LIMIT = 256 * 1024;
let gw: TestGateway;
let base: string;
beforeAll(async () => {
  gw = await startTestGateway({ SQLGATE_MAX_BODY_BYTES: String(LIMIT) });
  base = await gw.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => gw.close());

type Sent = { status: number; body: string; headers: Record<string, unknown> };

/** POSTs `parts` one write each; with `chunked`, no Content-Length is sent (Transfer-Encoding: chunked). */
function post(parts: Buffer[], chunked: boolean): Promise<Sent> {
  const length = parts.reduce((n, p) => n + p.length, 0);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/verify', base),
      {
        method: 'POST',
        headers: {
          ...gw.auth,
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': length }),
        },
      },
      (res) => {
        const got: Buffer[] = [];
        res.on('data', (c: Buffer) => got.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(got).toString(), headers: res.headers }),
        );
      },
    );
    // The server may answer 413 and close before the whole body is written: that is not a failure here.
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? undefined : reject(e)));
    for (const p of parts) req.write(p);
    req.end();
  });
}

const split = (text: string, size: number): Buffer[] => {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
};

const rows = (n: number, from = 0): Array<Record<string, unknown>> =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, s: `李雷 😀 "${from + i}"`, v: 1.5 }));

describe('POST /verify streamed over a socket, with and without Content-Length', () => {
  const body = JSON.stringify({ original: rows(1000), rewritten: [...rows(999), { id: 999, v: 2 }] });

  it.each([true, false])('chunked=%s: exact result across 1000-byte writes', async (chunked) => {
    expect(body.length).toBeLessThan(LIMIT);
    const res = await post(split(body, 1000), chunked);
    expect(res.status).toBe(200);
    const json = JSON.parse(res.body) as { summary: Record<string, number>; differences: unknown[] };
    expect(json.summary).toMatchObject({ original_rows: 1000, rewritten_rows: 1000, missing: 1, extra: 1 });
    expect(json.differences[1]).toEqual({ row: 999, original: null, rewritten: { id: 999, v: 2 } });
  });

  it.each([true, false])(
    'chunked=%s: a body over the limit is 413, then the server still serves',
    async (chunked) => {
      const huge = JSON.stringify({ original: rows(12_000), rewritten: [] });
      expect(huge.length).toBeGreaterThan(LIMIT);
      const res = await post(split(huge, 16_384), chunked);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toMatchObject({ status: 413 });
      expect((await post([Buffer.from('{"original":[],"rewritten":[]}')], chunked)).status).toBe(200);
    },
  );

  it.each([true, false])(
    'chunked=%s: invalid JSON early in a long body is a 400 problem, not a reset',
    async (chunked) => {
      const bad = `{"original":[{"a":1,}],"rewritten":[${JSON.stringify(rows(4000)).slice(1, -1)}]}`;
      const res = await post(split(bad, 16_384), chunked);
      expect(res.status).toBe(400);
      expect(res.headers.connection).toBe('close'); // the unread rest of the body is not drained
      expect((await post([Buffer.from('{"original":[],"rewritten":[]}')], chunked)).status).toBe(200);
    },
  );

  it('reports its own duration in Server-Timing', async () => {
    const res = await post([Buffer.from(body)], false);
    expect(res.headers['server-timing']).toMatch(/^verify;dur=[\d.]+, json;dur=[\d.]+, total;dur=[\d.]+$/);
  });
});
