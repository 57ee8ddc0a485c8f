import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ SQLGATE_RATE_LIMIT_PER_MINUTE: '1000' });
});
afterAll(async () => gw.close());

const post = (body: unknown, headers: Record<string, string> = gw.auth) =>
  gw.app.inject({
    method: 'POST',
    url: '/query',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });

const expectProblem = (
  res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown },
  status: number,
  code: string,
) => {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/problem+json');
  const body = res.json() as Record<string, unknown>;
  expect(body.type).toBe(`https://sqlgate.dev/problems/${code}`);
  expect(body.status).toBe(status);
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(body.instance).toMatch(/^[0-9a-f]{32}$/);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
  return body;
};

describe('POST /query — happy', () => {
  it.each(['bigquery', 'snowflake', 'aurora'])(
    'runs on %s in local mode and counts rows',
    async (warehouse) => {
      const res = await post({ warehouse, query: 'SELECT n_name FROM nation WHERE n_regionkey = 1' });
      expect(res.statusCode).toBe(200);
      const body = res.json<Record<string, unknown>>();
      expect(body.rows).toBe(5);
      expect(body.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(body.warehouse).toBe(warehouse);
      expect(typeof body.rewritten_query).toBe('string');
      expect(body.duration_ms).toBeGreaterThan(0);
      expect(Array.isArray(body.rules_applied)).toBe(true);
      expect(typeof body.fallback).toBe('boolean');
    },
  );
  it('uses the default warehouse (bigquery) when none is named', async () => {
    const res = await post({ query: 'SELECT 1 AS one' });
    expect(res.json<Record<string, unknown>>().warehouse).toBe('bigquery');
  });
  it('takes the trace id from traceparent', async () => {
    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await post(
      { query: 'SELECT 1' },
      { ...gw.auth, traceparent: `00-${trace}-00f067aa0ba902b7-01` },
    );
    expect(res.json<Record<string, unknown>>().trace_id).toBe(trace);
  });
  it('keeps Postgres integer division on aurora (7/2 = 3) and exact division on bigquery', async () => {
    const aurora = await post({ warehouse: 'aurora', query: 'SELECT 1 FROM nation WHERE 7/2 = 3' });
    expect(aurora.json<Record<string, unknown>>().rows).toBe(25);
    const bq = await post({ warehouse: 'bigquery', query: 'SELECT 1 FROM nation WHERE 7/2 = 3.5' });
    expect(bq.json<Record<string, unknown>>().rows).toBe(25);
  });
  it('reads BigQuery backtick paths as project.dataset.table', async () => {
    const res = await post({ warehouse: 'bigquery', query: 'SELECT r_name FROM `demo-project.tpch.region`' });
    expect(res.statusCode).toBe(200);
    expect(res.json<Record<string, unknown>>().rows).toBe(5);
  });
  it('runs a query nested deeper than the parser allows, as written, with fallback', async () => {
    const deep = `SELECT ${'('.repeat(40)}1${')'.repeat(40)} AS x`;
    const res = await post({ warehouse: 'aurora', query: deep });
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, unknown>>();
    expect(body.fallback).toBe(true);
    expect(body.rewritten_query).toBe(deep);
    expect(body.rows).toBe(1);
  });
  it('writes every query to the query log', async () => {
    const res = await post({ warehouse: 'snowflake', query: 'SELECT count(*) FROM orders' });
    const trace = res.json<Record<string, unknown>>().trace_id;
    const { rows } = await gw.services.db.query<{
      status: string;
      warehouse: string;
      rows: string;
      key_id: string;
    }>('SELECT status, warehouse, rows, key_id FROM query_log WHERE trace_id = $1', [trace]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'ok', warehouse: 'snowflake' });
    expect(Number(rows[0]?.rows)).toBe(1);
  });
});

describe('POST /query — errors', () => {
  it('400 invalid-sql with line and column', async () => {
    const body = expectProblem(await post({ query: 'SELECT a,\nFROM WHERE' }), 400, 'invalid-sql');
    expect(body.line).toBe(2);
    expect(typeof body.column).toBe('number');
  });
  it('400 invalid-sql for the trailing comma the parser library accepts', async () => {
    expectProblem(await post({ query: 'SELECT n_name, FROM nation' }), 400, 'invalid-sql');
  });
  it.each([
    'DELETE FROM lineitem',
    'SELECT 1; SELECT 2',
    'SELECT 1; DROP TABLE nation',
    'WITH d AS (DELETE FROM nation RETURNING *) SELECT * FROM d',
    'CREATE TABLE x AS SELECT 1',
    'SET search_path = public',
    'SELECT * FROM nation FOR UPDATE',
  ])('403 statement-not-allowed: %s', async (query) => {
    expectProblem(await post({ warehouse: 'aurora', query }), 403, 'statement-not-allowed');
  });
  it('422 unknown-warehouse listing the allowed values', async () => {
    const body = expectProblem(
      await post({ query: 'SELECT 1', warehouse: 'oracle' }),
      422,
      'unknown-warehouse',
    );
    expect(body.allowed).toEqual(['bigquery', 'snowflake', 'aurora']);
  });
  it('422 bytes-limit-exceeded in local mode too: the byte model is checked, nothing runs', async () => {
    const body = expectProblem(
      await post({ warehouse: 'bigquery', query: 'SELECT l_comment FROM lineitem', max_bytes_billed: 1024 }),
      422,
      'bytes-limit-exceeded',
    );
    expect(body).toMatchObject({
      max_bytes_billed: 1024,
      refused_by: 'estimate',
      estimate: { bytes_billed: 10 * 1024 * 1024, method: 'model' },
    });
    const ok = await post({
      warehouse: 'bigquery',
      query: 'SELECT 1 AS x',
      max_bytes_billed: 10 * 1024 * 1024,
    });
    expect(ok.statusCode).toBe(200);
  });
  it('400 for max_bytes_billed on a warehouse not billed by bytes, or not a positive integer', async () => {
    expectProblem(
      await post({ warehouse: 'aurora', query: 'SELECT 1', max_bytes_billed: 1024 }),
      400,
      'invalid-request',
    );
    expectProblem(await post({ query: 'SELECT 1', max_bytes_billed: -1 }), 400, 'invalid-request');
    expectProblem(await post({ query: 'SELECT 1', max_bytes_billed: '10' }), 400, 'invalid-request');
  });
  it('422 query-failed with the warehouse message', async () => {
    const body = expectProblem(await post({ query: 'SELECT * FROM no_such_table' }), 422, 'query-failed');
    expect(String(body.detail)).toMatch(/no_such_table/);
  });
  it('400 on missing fields and wrong types', async () => {
    expectProblem(await post({}), 400, 'invalid-request');
    expectProblem(await post({ query: 42 }), 400, 'invalid-request');
    expectProblem(await post({ query: 'SELECT 1', warehouse: 7 }), 400, 'invalid-request');
    expectProblem(await post([]), 400, 'invalid-request');
  });
  it('400 malformed-json', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: { ...gw.auth, 'content-type': 'application/json' },
      payload: '{"query":',
    });
    expectProblem(res, 400, 'malformed-json');
  });
  it('415 for a body that is not JSON', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: { ...gw.auth, 'content-type': 'text/plain' },
      payload: 'SELECT 1',
    });
    expectProblem(res, 415, 'unsupported-media-type');
  });
  it('413 query-too-large past the query text limit', async () => {
    const query = `SELECT 1 AS x -- ${'x'.repeat(1024 * 1024)}`;
    expectProblem(await post({ query }), 413, 'query-too-large');
  });
  it.each([
    'SELECT count(*) FROM lineitem a, lineitem b, lineitem c',
    // Rows streaming when the timeout strikes: once answered 200 with the rows counted so far.
    'SELECT a.l_orderkey FROM lineitem a, lineitem b, lineitem c',
  ])('504 query-timeout past the statement timeout, and the gateway keeps serving: %s', async (query) => {
    // 500 ms: enough for SELECT 1 on a loaded machine (a statement past the timeout is a 504 even if it was
    // about to finish), far below what the slow statements need.
    const slow = await gw.variant({ SQLGATE_STATEMENT_TIMEOUT_MS: '500' });
    const res = await slow.inject({
      method: 'POST',
      url: '/query',
      headers: { ...gw.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query }),
    });
    expectProblem(res, 504, 'query-timeout');
    const ok = await slow.inject({
      method: 'POST',
      url: '/query',
      headers: { ...gw.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'SELECT 1' }),
    });
    expect(ok.statusCode).toBe(200);
  });
});

describe('POST /query — security', () => {
  it('401 with WWW-Authenticate: Bearer when the key is missing', async () => {
    const res = await post({ query: 'SELECT 1' }, {});
    expectProblem(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });
  it.each([
    ['unknown', 'sg_00000000000000000000000000000000000000'],
    ['malformed', 'not-a-key'],
  ])('401 invalid_token for an %s key', async (_what, key) => {
    const res = await post({ query: 'SELECT 1' }, { authorization: `Bearer ${key}` });
    expectProblem(res, 401, 'invalid-token');
    expect(res.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });
  it('401 invalid_token for a revoked key, effective immediately', async () => {
    const { key, record } = await gw.services.keys.create({ accountEmail: 'revoked@example.com' });
    expect((await post({ query: 'SELECT 1' }, { authorization: `Bearer ${key}` })).statusCode).toBe(200);
    await gw.services.keys.revoke(record.id);
    const res = await post({ query: 'SELECT 1' }, { authorization: `Bearer ${key}` });
    expectProblem(res, 401, 'invalid-token');
  });
  it('401 invalid_token for an expired key', async () => {
    const { key } = await gw.services.keys.create({
      accountEmail: 'expired@example.com',
      expiresAt: new Date(Date.now() - 1000),
    });
    expectProblem(
      await post({ query: 'SELECT 1' }, { authorization: `Bearer ${key}` }),
      401,
      'invalid-token',
    );
  });
  it('never echoes the key in a response', async () => {
    const res = await post({ query: 'SELECT * FROM nope' });
    expect(res.body).not.toContain(gw.key);
  });
  it('429 with Retry-After and RateLimit headers past the per-key limit', async () => {
    const limited = await gw.variant({ SQLGATE_RATE_LIMIT_PER_MINUTE: '2' });
    const call = () => limited.inject({ method: 'GET', url: '/warehouses', headers: gw.auth });
    expect((await call()).headers['ratelimit-policy']).toBe('2;w=60');
    await call();
    const res = await call();
    expectProblem(res, 429, 'rate-limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(String(res.headers.ratelimit)).toMatch(/remaining=0/);
  });
});
