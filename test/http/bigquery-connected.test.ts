import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startBigQueryGateway } from '../support/bigquery-gateway.ts';
import type { BigQueryStandin, RecordedRequest } from '../support/bigquery-standin.ts';
import type { TestGateway } from '../support/app.ts';
import { duckDbTpchRowCounts, tpchQueries } from '../support/tpch-duckdb.ts';

/**
 * POST /query, GET /cost and GET /warehouses with bigquery connected (SQLGATE_BIGQUERY_PROJECT) through the
 * official client to the local stand-in, which holds the TPC-H corpus in dataset `tpch`.
 */
const MIB = 1024 * 1024;
const TIB = 1024 ** 4;
const TRACE = '0af7651916cd43dd8448eb211c80319c';

let s: BigQueryStandin;
let gw: TestGateway;
let close: () => Promise<void> = () => Promise.resolve();
beforeAll(async () => {
  ({ s, gw, close } = await startBigQueryGateway());
}, 120_000);
afterAll(() => close());
beforeEach(() => {
  s.faults = {};
  s.requests.length = 0;
});

let address: string | undefined;
/** The gateway on a real socket (a client that goes away needs one), opened once for the file. */
const listening = async (): Promise<string> =>
  (address ??= await gw.app.listen({ host: '127.0.0.1', port: 0 }));

const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  gw.app.inject({ method: 'POST', url: '/query', headers: { ...gw.auth, ...headers }, payload: body });
const cost = (query: string) =>
  gw.app.inject({
    method: 'GET',
    url: `/cost?${new URLSearchParams({ query }).toString()}`,
    headers: gw.auth,
  });

const jobInserts = (): RecordedRequest[] =>
  s.requests.filter(
    (r) =>
      r.method === 'POST' &&
      r.path.endsWith('/jobs') &&
      (r.body?.configuration as { dryRun?: boolean }).dryRun !== true,
  );
const dryRuns = (): RecordedRequest[] =>
  s.requests.filter((r) => (r.body?.configuration as { dryRun?: boolean } | undefined)?.dryRun === true);
const queryText = (r: RecordedRequest | undefined): string =>
  String(((r?.body?.configuration as { query?: { query?: string } } | undefined)?.query ?? {}).query);

/** orders months of 1995, the partitions a year range on o_orderdate leaves. */
const in1995 = (id: string) => id.startsWith('1995');
const YEAR_QUERY = 'SELECT o_orderkey FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) = 1995';

describe('bigquery connected', () => {
  it('GET /warehouses shows bigquery connected, priced by dry runs', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/warehouses', headers: gw.auth });
    const bq = res
      .json<{ warehouses: Array<Record<string, unknown>> }>()
      .warehouses.find((w) => w.name === 'bigquery');
    expect(bq).toMatchObject({
      mode: 'connected',
      dialect: 'bigquery',
      engine: 'bigquery',
      cost_method: 'bigquery-dry-run',
    });
    expect(bq?.pricing).toMatchObject({ usd_per_tib: 6.25, max_bytes_billed: TIB });
  });

  it('POST /query runs a labelled job and reports job id, bytes and cache hit', async () => {
    const res = await post(
      { query: 'SELECT n_name FROM nation WHERE n_regionkey = 1' },
      { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
    );
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      trace_id: TRACE,
      warehouse: 'bigquery',
      rows: 5,
      cache_hit: false,
      bytes_processed: s.columnBytes('nation', ['n_name', 'n_regionkey']),
      bytes_billed: 10 * MIB,
    });
    expect(body.job_id).toMatch(new RegExp(`^sqlgate_${TRACE}_`));
    const [insert] = jobInserts();
    const c = insert?.body?.configuration as Record<string, unknown>;
    expect(c).toMatchObject({
      query: { useLegacySql: false, maximumBytesBilled: String(TIB) },
      labels: { sqlgate_trace_id: TRACE },
    });
    expect((c.labels as Record<string, string>).sqlgate_account).toMatch(/^acc_[0-9a-f]{32}$/);
    const again = (await post({ query: 'SELECT n_name FROM nation WHERE n_regionkey = 1' })).json<
      Record<string, unknown>
    >();
    expect(again).toMatchObject({ cache_hit: true, bytes_billed: 0 });
  });

  it('GET /cost: real dry runs of both forms, in parallel, without the cache, priced exactly', async () => {
    s.faults = { dryRunDelayMs: 250 };
    const res = await cost(YEAR_QUERY);
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, unknown>>();
    const original = s.columnBytes('orders', ['o_orderkey', 'o_orderdate']);
    const optimized = s.columnBytes('orders', ['o_orderkey', 'o_orderdate'], in1995);
    expect(body).toMatchObject({
      method: 'dry_run',
      accuracy: 'exact',
      bytes_processed: { original, optimized },
    });
    expect(body.original_cost).toBeCloseTo(((10 * MIB) / TIB) * 6.25, 9);
    expect(optimized).toBeLessThan(original);
    expect(dryRuns()).toHaveLength(2);
    for (const r of dryRuns())
      expect(r.body?.configuration).toMatchObject({ query: { useQueryCache: false } });
    expect(s.maxConcurrentDryRuns).toBe(2);
    expect(jobInserts()).toHaveLength(0);
  });

  it('several tables: the lower bound of the bill, with its upper bound in the assumptions', async () => {
    const body = (
      await cost('SELECT c_name, o_totalprice FROM customer JOIN orders ON o_custkey = c_custkey')
    ).json<Record<string, unknown>>();
    expect(body).toMatchObject({
      accuracy: 'lower_bound',
      assumptions: { referenced_tables: 2, bytes_billed: 20 * MIB },
    });
  });

  it('POST /query runs the rewritten form the dry run priced, and reports its savings in bytes', async () => {
    const body = (await post({ query: YEAR_QUERY })).json<Record<string, unknown>>();
    expect(body.rules_applied).toContain('sargable-dates');
    expect(queryText(jobInserts()[0])).toBe(body.rewritten_query);
    expect(body.bytes_processed).toBe(s.columnBytes('orders', ['o_orderkey', 'o_orderdate'], in1995));
  });

  it('the dry run gates the rewrite: rated dearer, the original runs; refused, the original runs as a fallback', async () => {
    s.faults = { dryRunAnswer: (sql) => (sql.includes('EXTRACT') ? undefined : { bytes: 100 * TIB }) };
    const dearer = (await post({ query: YEAR_QUERY })).json<Record<string, unknown>>();
    expect(dearer).toMatchObject({ rewritten_query: YEAR_QUERY, rules_applied: [], fallback: false });
    expect(queryText(jobInserts()[0])).toBe(YEAR_QUERY);
    expect((dearer.cost as Record<string, unknown>).savings).toBe(0);
    s.faults = { dryRunAnswer: (sql) => (sql.includes('EXTRACT') ? undefined : { refuse: 'no such thing' }) };
    s.requests.length = 0;
    const refused = (await post({ query: YEAR_QUERY })).json<Record<string, unknown>>();
    expect(refused).toMatchObject({ rewritten_query: YEAR_QUERY, rules_applied: [], fallback: true });
    expect(queryText(jobInserts()[0])).toBe(YEAR_QUERY);
  });

  it('max_bytes_billed: refused on the estimate before anything runs, with the estimate', async () => {
    const res = await post({ query: 'SELECT l_comment FROM lineitem', max_bytes_billed: MIB });
    expect(res.statusCode).toBe(422);
    expect(res.json<Record<string, unknown>>()).toMatchObject({
      code: 'bytes-limit-exceeded',
      max_bytes_billed: MIB,
      refused_by: 'estimate',
      estimate: {
        bytes_processed: s.columnBytes('lineitem', ['l_comment']),
        bytes_billed: 10 * MIB,
        method: 'dry_run',
      },
    });
    expect(jobInserts()).toHaveLength(0);
  });

  it('max_bytes_billed: refused by BigQuery when the job bills more than its dry run said', async () => {
    s.faults = { extraBilledBytes: MIB };
    const res = await post({ query: 'SELECT l_comment FROM lineitem', max_bytes_billed: 10 * MIB });
    expect(res.statusCode).toBe(422);
    expect(res.json<Record<string, unknown>>()).toMatchObject({
      code: 'bytes-limit-exceeded',
      refused_by: 'warehouse',
      bigquery_reason: 'bytesBilledLimitExceeded',
      estimate: { bytes_billed: 10 * MIB },
    });
    expect(jobInserts()[0]?.body?.configuration).toMatchObject({
      query: { maximumBytesBilled: String(10 * MIB) },
    });
  });

  it('max_bytes_billed on a warehouse not billed by bytes: 400, not ignored', async () => {
    const res = await post({ query: 'SELECT 1', warehouse: 'snowflake', max_bytes_billed: MIB });
    expect(res.statusCode).toBe(400);
    expect(res.json<Record<string, unknown>>().detail).toMatch(/max_bytes_billed/);
  });

  it('invalidQuery: 422 query-failed with BigQuery message, line and column', async () => {
    const res = await post({ query: 'SELECT n_name,\n  n_nosuch FROM nation' });
    expect(res.statusCode).toBe(422);
    expect(res.json<Record<string, unknown>>()).toMatchObject({ code: 'query-failed', line: 2, column: 3 });
    expect(res.json<{ detail: string }>().detail).toContain('n_nosuch');
  });

  it('rate limited: 429 with the Retry-After BigQuery sent; down: 503 with Retry-After', async () => {
    s.faults = { rateLimited: { remaining: 1, retryAfterSeconds: 7 } };
    const limited = await post({ query: 'SELECT 1 AS x' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.json<Record<string, unknown>>().code).toBe('warehouse-rate-limited');
    s.faults = { unavailable: true };
    const down = await post({ query: 'SELECT 2 AS x' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('2');
    expect(down.json<Record<string, unknown>>().code).toBe('warehouse-unavailable');
  });

  it("the gateway's read-only check refuses a write before BigQuery sees it", async () => {
    const res = await post({ query: 'DELETE FROM nation WHERE true' });
    expect(res.statusCode).toBe(403);
    expect(s.requests).toHaveLength(0);
  });

  // The client going away cancels the job on BigQuery. The stop can also come while the insert is on its way:
  // the job may already exist (one cancel is enough), or not yet (that cancel finds nothing, so the adapter
  // cancels again once the insert returns). Either way the job ends cancelled.
  it.each([
    { name: 'the job running', faults: { jobDelayMs: 10_000 }, cancels: 1, answer: 42 },
    {
      name: 'the job exists',
      faults: { jobDelayMs: 10_000, insertAnswerDelayMs: 400 },
      cancels: 1,
      answer: 43,
    },
    {
      name: 'no job yet',
      faults: { jobDelayMs: 10_000, insertCreateDelayMs: 1_500 },
      cancels: 2,
      answer: 44,
    },
  ])('the client going away cancels the job on BigQuery ($name)', async ({ faults, cancels, answer }) => {
    s.faults = faults;
    const base = await listening();
    const controller = new AbortController();
    const request = fetch(`${base}/query`, {
      method: 'POST',
      signal: controller.signal,
      headers: { ...gw.auth, 'content-type': 'application/json' },
      // A text of its own: a cached result would end the job before any cancel.
      body: JSON.stringify({ query: `SELECT ${answer} AS answer` }),
    }).catch((e: unknown) => e);
    await expect.poll(() => jobInserts().length, { timeout: 5_000 }).toBe(1);
    controller.abort();
    await request;
    const id = String((jobInserts()[0]?.body?.jobReference as { jobId?: string } | undefined)?.jobId);
    await expect.poll(() => s.jobs.get(id)?.error?.reason, { timeout: 5_000 }).toBe('stopped');
    await new Promise((r) => setTimeout(r, 600));
    expect(s.requests.filter((r) => r.path.endsWith('/cancel'))).toHaveLength(cancels);
  });

  it('OpenAPI describes max_bytes_billed and the run fields', async () => {
    const doc = JSON.stringify((await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json());
    for (const field of ['max_bytes_billed', 'job_id', 'bytes_billed', 'cache_hit', 'accuracy'])
      expect(doc).toContain(field);
  });
});

describe('the 22 TPC-H queries on connected bigquery', () => {
  let expected = new Map<string, number>();
  beforeAll(async () => {
    expected = await duckDbTpchRowCounts();
  }, 60_000);
  it.each(tpchQueries())(
    '$name gives the reference row count, rewritten where the dry run agrees',
    async ({ name, sql }) => {
      const res = await post({ query: sql });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ rows: number; rewritten_query: string; cost: { method: string } }>();
      expect(body.rows).toBe(expected.get(name));
      expect(body.cost.method).toBe('dry_run');
      expect(queryText(jobInserts().at(-1))).toBe(body.rewritten_query);
    },
  );
});
