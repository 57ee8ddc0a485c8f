import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

let g: TestGateway;
beforeAll(async () => {
  g = await startTestGateway({ SQLGATE_RATE_LIMIT_PER_MINUTE: '100000' });
}, 120_000);
afterAll(async () => {
  await g?.close();
});

const NATION = 'SELECT n_nationkey, n_name FROM nation ORDER BY n_nationkey';
const post = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  g.app.inject({ method: 'POST', url: '/query', headers: { ...g.auth, ...headers }, payload });
const lines = (body: string): Record<string, unknown>[] =>
  body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('rows on request (local mode)', () => {
  it('keeps the contract response when rows are not asked for', async () => {
    const res = await post({ query: NATION, warehouse: 'aurora' });
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, unknown>>();
    expect(body.rows).toBe(25);
    expect(body).not.toHaveProperty('data');
    expect(body).not.toHaveProperty('columns');
  });

  it('return_rows: the first max_rows rows as objects, columns with types, truncated', async () => {
    const res = await post({ query: NATION, warehouse: 'aurora', return_rows: true, max_rows: 5 });
    expect(res.statusCode).toBe(200);
    const body = res.json<{
      rows: number;
      data: Record<string, unknown>[];
      columns: { name: string; type: string }[];
      truncated: boolean;
    }>();
    expect(body.rows).toBe(25);
    expect(body.truncated).toBe(true);
    expect(body.data).toHaveLength(5);
    expect(body.data[0]).toEqual({ n_nationkey: 0, n_name: 'ALGERIA' });
    expect(body.columns.map((c) => c.name)).toEqual(['n_nationkey', 'n_name']);
    const all = await post({ query: NATION, warehouse: 'aurora', return_rows: true });
    expect(all.json<{ data: unknown[]; truncated: boolean }>()).toMatchObject({ truncated: false });
    expect(all.json<{ data: unknown[] }>().data).toHaveLength(25);
  });

  it('max_rows outside 1..100,000 is 400', async () => {
    for (const max_rows of [0, 100_001]) {
      const res = await post({ query: NATION, return_rows: true, max_rows });
      expect(res.statusCode).toBe(400);
    }
  });

  it('NDJSON: a first line with the contract fields and columns, a line per row, a last line', async () => {
    const res = await post({ query: NATION, warehouse: 'aurora' }, { accept: 'application/x-ndjson' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const l = lines(res.body);
    expect(l).toHaveLength(27);
    expect(l[0]).toMatchObject({ warehouse: 'aurora', fallback: false, rules_applied: [] });
    expect(l[0]?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(l[0]?.columns).toEqual([
      { name: 'n_nationkey', type: expect.any(String) as unknown },
      { name: 'n_name', type: expect.any(String) as unknown },
    ]);
    expect(l[1]).toEqual({ n_nationkey: 0, n_name: 'ALGERIA' });
    expect(l[26]).toMatchObject({ complete: true, rows: 25, trace_id: l[0]?.trace_id });
    expect(typeof l[26]?.duration_ms).toBe('number');
    expect(l[26]?.cost).toMatchObject({ currency: 'USD' });
  });

  it('NDJSON: refusals before running are ordinary problem responses', async () => {
    const res = await post({ query: 'DELETE FROM nation' }, { accept: 'application/x-ndjson' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    const keyId = (await g.services.keys.list())[0]?.id ?? '';
    await g.services.guardrails.setKeyLimits((await g.services.keys.list())[0]?.accountId ?? '', keyId, {
      max_usd_per_query: 0,
    });
    const limited = await post({ query: NATION }, { accept: 'application/x-ndjson' });
    expect(limited.statusCode).toBe(422);
    expect(limited.json<{ code: string }>().code).toBe('cost-limit-exceeded');
    await g.services.guardrails.setKeyLimits((await g.services.keys.list())[0]?.accountId ?? '', keyId, {});
  });

  it('values keep their exactness (DuckDB)', async () => {
    const res = await post({
      warehouse: 'aurora',
      return_rows: true,
      query: `SELECT CAST(9223372036854775807 AS bigint) AS big, CAST(-9007199254740993 AS bigint) AS neg,
        CAST(42 AS bigint) AS small, CAST('12345678901234567.5' AS numeric(20,1)) AS dec,
        CAST('0.10' AS numeric(5,2)) AS tenth, DATE '2024-01-02' AS d,
        TIMESTAMP '2024-01-02 03:04:05.25' AS ts, true AS yes, CAST(NULL AS integer) AS nothing`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ data: Record<string, unknown>[] }>();
    expect(body.data[0]).toEqual({
      big: '9223372036854775807',
      neg: '-9007199254740993',
      small: 42,
      dec: '12345678901234567.5',
      tenth: 0.1,
      d: '2024-01-02',
      ts: '2024-01-02T03:04:05.25',
      yes: true,
      nothing: null,
    });
    expect(res.body).toContain('"big":"9223372036854775807"');
  });

  it('the OpenAPI document describes both forms', async () => {
    const doc = (await g.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content: Record<string, unknown> }> }>
      >;
    }>();
    const content = doc.paths['/query']?.post?.responses['200']?.content ?? {};
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/x-ndjson']);
    expect(JSON.stringify(content['application/json'])).toContain('truncated');
  });
});
