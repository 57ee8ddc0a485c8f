import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';
import { scanStats } from '../support/snowflake-standin-sql.ts';
import { snowflakeKeys, snowflakeEnv } from '../support/snowflake-keys.ts';
import { startSnowflakeStandin } from '../support/snowflake-standin.ts';
import type { SnowflakeStandin, StandinQuery } from '../support/snowflake-standin.ts';
import { duckDbTpchRowCounts, tpchQueries } from '../support/tpch-duckdb.ts';

/**
 * POST /query, GET /cost and GET /warehouses with snowflake connected (SQLGATE_SNOWFLAKE_ACCOUNT, key-pair
 * authentication from SQLGATE_SNOWFLAKE_PRIVATE_KEY_FILE) through `snowflake-sdk` to the local stand-in
 * (port 26215), which holds the TPC-H corpus in SQLGATE.TPCH.
 */
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const YEAR_QUERY = 'SELECT o_orderkey FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) = 1995';

let s: SnowflakeStandin;
let gw: TestGateway;
let dir: string;
beforeAll(async () => {
  const keys = snowflakeKeys();
  dir = mkdtempSync(join(tmpdir(), 'sqlgate-snowflake-'));
  s = await startSnowflakeStandin({ port: 26215, publicKey: keys.publicKey, holdMs: 100 });
  gw = await startTestGateway({
    ...snowflakeEnv(s, keys.privateKey, dir),
    SQLGATE_SNOWFLAKE_WAREHOUSE_SIZE: 'SMALL',
    SQLGATE_SNOWFLAKE_USD_PER_CREDIT: '3',
    SQLGATE_DEFAULT_WAREHOUSE: 'snowflake',
    SQLGATE_RATE_LIMIT_PER_MINUTE: '100000',
  });
}, 120_000);
afterAll(async () => {
  await gw.close();
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  s.faults = {};
  s.requests.length = 0;
  s.queries.length = 0;
});

const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  gw.app.inject({ method: 'POST', url: '/query', headers: { ...gw.auth, ...headers }, payload: body });
const cost = (query: string) =>
  gw.app.inject({
    method: 'GET',
    url: `/cost?${new URLSearchParams({ query }).toString()}`,
    headers: gw.auth,
  });

/** Statements the gateway ran (not EXPLAIN, not metadata). */
const runs = (): StandinQuery[] =>
  s.queries.filter((q) => !/^\s*(EXPLAIN|SHOW)\b/i.test(q.sql) && !/INFORMATION_SCHEMA/i.test(q.sql));
const explains = (): StandinQuery[] => s.queries.filter((q) => /^\s*EXPLAIN USING JSON/i.test(q.sql));

/** The oracle: EXPLAIN's figures for a scan of orders, computed from the stand-in's micro-partitions. */
const ordersScan = (filters: string[]) => {
  const t = s.tables.get('orders');
  if (!t) throw new Error('no orders');
  return scanStats(t, ['o_orderkey', 'o_orderdate'], filters);
};

describe('snowflake connected', () => {
  it('GET /warehouses shows snowflake connected, priced by EXPLAIN at the configured size', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/warehouses', headers: gw.auth });
    const sf = res
      .json<{ warehouses: Array<Record<string, unknown>> }>()
      .warehouses.find((w) => w.name === 'snowflake');
    expect(sf).toMatchObject({ mode: 'connected', dialect: 'snowflake', cost_method: 'snowflake-explain' });
    expect(sf?.pricing).toMatchObject({
      warehouse_size: 'SMALL',
      credits_per_hour: 2,
      usd_per_credit: 3,
      minimum_seconds_on_resume: 60,
    });
  });

  it('POST /query runs with QUERY_TAG (trace id, account) and reports the query id', async () => {
    const res = await post(
      { query: 'SELECT n_name FROM nation WHERE n_regionkey = 1' },
      { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
    );
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, unknown>>();
    expect(body).toMatchObject({ trace_id: TRACE, warehouse: 'snowflake', rows: 5 });
    const run = runs().at(-1);
    expect(body.query_id).toBe(run?.id);
    const tag = JSON.parse(run?.queryTag ?? '{}') as Record<string, string>;
    expect(tag.trace_id).toBe(TRACE);
    expect(tag.account).toMatch(/^acc_[0-9a-f]{32}$/);
  });

  it('GET /cost: EXPLAIN USING JSON of both forms, priced by bytes assigned at the size’s scan rate', async () => {
    const res = await cost(YEAR_QUERY);
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, unknown>>();
    const original = ordersScan([]);
    const optimized = ordersScan(["o_orderdate>='1995-01-01'::DATE", "o_orderdate<'1996-01-01'::DATE"]);
    expect(optimized.partitionsAssigned).toBeLessThan(original.partitionsAssigned);
    expect(body).toMatchObject({
      method: 'explain',
      bytes_processed: { original: original.bytesAssigned, optimized: optimized.bytesAssigned },
      assumptions: {
        warehouse_size: 'SMALL',
        credits_per_hour: 2,
        partitions_assigned: original.partitionsAssigned,
        partitions_total: original.partitionsTotal,
        minimum_seconds_on_resume: 60,
      },
    });
    // SMALL scans 200 MiB/s: the corpus is far below one second, billed as one second at 2 credits/hour.
    expect(body.original_cost).toBeCloseTo((1 * 2 * 3) / 3600, 9);
    expect(explains()).toHaveLength(2);
    expect(runs()).toHaveLength(0);
  });

  it('GET /cost falls back to the heuristic, saying so, when EXPLAIN fails', async () => {
    s.faults = { refuseExplain: true };
    const body = (await cost(YEAR_QUERY)).json<{ method: string; assumptions: Record<string, unknown> }>();
    expect(body.method).toBe('heuristic');
    expect(String(body.assumptions.explain_failed)).toContain('EXPLAIN');
  });

  it('the EXPLAIN estimate gates the rewrite: rated dearer, the original runs', async () => {
    const rewritten = (await post({ query: YEAR_QUERY })).json<Record<string, unknown>>();
    expect(rewritten.rules_applied).toContain('sargable-dates');
    expect(runs().at(-1)?.sql).toBe(rewritten.rewritten_query);
    s.faults = { explainBytes: (sql) => (sql.includes('EXTRACT') ? undefined : 1024 ** 4) };
    const dearer = (await post({ query: YEAR_QUERY })).json<Record<string, unknown>>();
    expect(dearer).toMatchObject({ rewritten_query: YEAR_QUERY, rules_applied: [] });
    expect(runs().at(-1)?.sql).toBe(YEAR_QUERY);
  });

  it('a compilation error: 422 query-failed with line and column', async () => {
    const res = await post({ query: 'SELECT n_name,\n  n_nosuch FROM nation' });
    expect(res.statusCode).toBe(422);
    expect(res.json<Record<string, unknown>>()).toMatchObject({ code: 'query-failed', line: 2, column: 3 });
  });

  it("the gateway's read-only check refuses a write before Snowflake sees it", async () => {
    const res = await post({ query: 'DELETE FROM nation WHERE true' });
    expect(res.statusCode).toBe(403);
    expect(s.queries.filter((q) => q.sql.includes('DELETE'))).toHaveLength(0);
  });

  it('the client going away cancels the statement on Snowflake (abort-request)', async () => {
    s.faults = { queryDelayMs: 10_000 };
    const base = await gw.app.listen({ host: '127.0.0.1', port: 26216 });
    const controller = new AbortController();
    const before = s.aborts.length;
    const request = fetch(`${base}/query`, {
      method: 'POST',
      signal: controller.signal,
      headers: { ...gw.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT 42 AS answer' }),
    }).catch((e: unknown) => e);
    await expect
      .poll(() => runs().some((q) => q.sql.includes('42') && q.state === 'running'), { timeout: 5_000 })
      .toBe(true);
    controller.abort();
    await request;
    await expect.poll(() => s.aborts.length, { timeout: 5_000 }).toBe(before + 1);
  });
});

describe('the 22 TPC-H queries on connected snowflake', () => {
  let expected = new Map<string, number>();
  beforeAll(async () => {
    expected = await duckDbTpchRowCounts();
  }, 60_000);
  it.each(tpchQueries())(
    '$name gives the reference row count, rewritten where EXPLAIN agrees',
    async ({ name, sql }) => {
      const res = await post({ query: sql });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{ rows: number; rewritten_query: string; cost: { method: string } }>();
      expect(body.rows).toBe(expected.get(name));
      expect(body.cost.method).toBe('explain');
      // The adapter sends one statement, without its trailing semicolon.
      expect(runs().at(-1)?.sql).toBe(body.rewritten_query.replace(/[\s;]+$/, ''));
    },
  );
});
