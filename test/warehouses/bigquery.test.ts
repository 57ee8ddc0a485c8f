import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isGatewayError, RETRY_AFTER } from '../../src/core/errors.ts';
import type { GatewayError } from '../../src/core/errors.ts';
import { openBigQuery } from '../../src/warehouses/bigquery-adapter.ts';
import type { BigQueryOptions } from '../../src/warehouses/bigquery-adapter.ts';
import { describeConformance } from '../../src/warehouses/conformance.ts';
import { startBigQueryStandin } from '../support/bigquery-standin.ts';
import type { BigQueryStandin, RecordedRequest } from '../support/bigquery-standin.ts';

/**
 * The BigQuery adapter through the real `@google-cloud/bigquery` client against the local stand-in
 * (test/support/bigquery-standin.ts): the conformance suite, the requests as the client sent them, exact
 * dry-run figures, and the faults (down, rate-limited, a failed page, a slow job past its deadline).
 */
const open = (s: BigQueryStandin, more: Partial<BigQueryOptions> = {}) =>
  openBigQuery({
    project: s.project,
    dataset: s.dataset,
    apiEndpoint: s.url,
    credentials: { kind: 'none' },
    statementTimeoutMs: 20_000,
    catalogTtlMs: 60_000,
    retries: 0,
    ...more,
  });

describeConformance('bigquery (official client, local stand-in)', async () => {
  const standin = await startBigQueryStandin();
  const adapter = await open(standin);
  return {
    adapter,
    cleanup: async () => {
      await adapter.close();
      await standin.close();
    },
  };
});

const rejection = async (p: Promise<unknown>): Promise<GatewayError> => {
  try {
    await p;
  } catch (e) {
    if (isGatewayError(e)) return e;
    throw e;
  }
  throw new Error('expected a failure');
};

const attribution = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', accountId: 'acc_Test.1', keyId: 'key_1' };

let s: BigQueryStandin;
beforeAll(async () => {
  s = await startBigQueryStandin({ pageSize: 1000, pollWaitMs: 100 });
});
afterAll(async () => {
  await s.close();
});
beforeEach(() => {
  s.faults = {};
  s.requests.length = 0;
});

const inserts = (): RecordedRequest[] =>
  s.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/jobs'));
const config = (r: RecordedRequest | undefined) =>
  (r?.body as { configuration: Record<string, unknown> } | undefined)?.configuration ?? {};

describe('query jobs as the client sends them', () => {
  it('inserts a GoogleSQL job with labels, maximumBytesBilled, the default dataset and a time limit', async () => {
    const bq = await open(s, { maxBytesBilled: 50 * 1024 * 1024 });
    const out = await bq.execute('SELECT n_name FROM nation', { timeoutMs: 10_000, attribution });
    expect(out).toMatchObject({ rows: 25, columns: ['n_name'], run: { cacheHit: false } });
    const c = config(inserts()[0]);
    expect(c).toMatchObject({
      query: {
        query: 'SELECT n_name FROM nation',
        useLegacySql: false,
        defaultDataset: { projectId: s.project, datasetId: s.dataset },
        maximumBytesBilled: String(50 * 1024 * 1024),
      },
      labels: { sqlgate_trace_id: attribution.traceId, sqlgate_account: 'acc_test_1', sqlgate_key: 'key_1' },
      jobTimeoutMs: '15000',
    });
    expect(c.dryRun).toBeUndefined();
    expect(out.run?.jobId).toMatch(new RegExp(`^sqlgate_${attribution.traceId}_`));
    // The per-request limit wins over the configured one.
    await bq.execute('SELECT n_name FROM nation', { timeoutMs: 10_000, maxBytesBilled: 20 * 1024 * 1024 });
    expect(config(inserts()[1])).toMatchObject({ query: { maximumBytesBilled: String(20 * 1024 * 1024) } });
  });

  it('counts rows page by page (pageToken) and reports the job statistics', async () => {
    const bq = await open(s);
    const out = await bq.execute('SELECT a.n_nationkey FROM nation a, nation b, nation c', {
      timeoutMs: 20_000,
    });
    expect(out.rows).toBe(25 ** 3);
    const pages = s.requests.filter((r) => r.method === 'GET' && r.path.includes('/queries/'));
    // 16 pages of at most 1,000 rows: the first (asked again while jobComplete was false), then 15 by pageToken.
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(25 ** 3 / 1000));
    expect(pages.filter((r) => r.query.pageToken !== undefined)).toHaveLength(Math.ceil(25 ** 3 / 1000) - 1);
    expect(out.run).toMatchObject({
      bytesProcessed: s.columnBytes('nation', ['n_nationkey']),
      bytesBilled: 10 * 1024 ** 2,
    });
    expect(
      s.requests.some((r) => r.method === 'GET' && r.path.endsWith(`/jobs/${out.run?.jobId ?? ''}`)),
    ).toBe(true);
  });

  it('polls while BigQuery answers jobComplete: false', async () => {
    s.faults = { jobDelayMs: 700 };
    const out = await (await open(s)).execute('SELECT r_name FROM region', { timeoutMs: 10_000 });
    expect(out.rows).toBe(5);
    const polls = s.requests.filter((r) => r.method === 'GET' && r.path.includes('/queries/'));
    expect(polls.length).toBeGreaterThanOrEqual(4);
  });

  it('leaves the result cache to BigQuery and reports a hit; dry runs bypass it', async () => {
    const bq = await open(s);
    const sql = 'SELECT p_name FROM part WHERE p_size = 7';
    const first = await bq.execute(sql, { timeoutMs: 10_000 });
    const second = await bq.execute(sql, { timeoutMs: 10_000 });
    expect(first.run).toMatchObject({
      cacheHit: false,
      bytesProcessed: s.columnBytes('part', ['p_name', 'p_size']),
    });
    expect(second.run).toMatchObject({ cacheHit: true, bytesBilled: 0 });
    expect(
      inserts().every((r) => (config(r).query as { useQueryCache?: unknown }).useQueryCache === undefined),
    ).toBe(true);
    const dry = await bq.dryRun(sql);
    expect(dry.bytesProcessed).toBe(s.columnBytes('part', ['p_name', 'p_size']));
    expect(config(inserts().at(-1))).toMatchObject({ dryRun: true, query: { useQueryCache: false } });
  });
});

describe('a dataset outside the US, no location configured', () => {
  it('follows the job to the location BigQuery ran it in: results, statistics and cancel find it', async () => {
    const eu = await startBigQueryStandin({ location: 'EU', pollWaitMs: 50 });
    try {
      const bq = await open(eu);
      const out = await bq.execute('SELECT r_name FROM region', { timeoutMs: 10_000 });
      expect(out).toMatchObject({ rows: 5, run: { bytesBilled: 10 * 1024 ** 2 } });
      const calls = eu.requests.filter((r) => r.method === 'GET' && r.path.includes(out.run?.jobId ?? '?'));
      expect(calls.map((r) => r.query.location)).toEqual(calls.map(() => 'EU'));
      eu.faults = { jobDelayMs: 5_000 };
      const e = await rejection(bq.execute('SELECT 1', { timeoutMs: 300 }));
      expect(e.code).toBe('query-timeout');
      await expect
        .poll(() => eu.requests.filter((r) => r.path.endsWith('/cancel')).length)
        .toBeGreaterThan(0);
      const cancelled = eu.requests.filter((r) => r.path.endsWith('/cancel')).at(-1);
      expect(cancelled?.query.location).toBe('EU');
      expect(eu.jobs.get(cancelled?.path.split('/')[4] ?? '')?.error?.reason).toBe('stopped');
    } finally {
      await eu.close();
    }
  });
});

describe('dry runs: exact bytes, columns and partitions', () => {
  const MONTH = (id: string) => id === '199502';
  const cases: Array<[string, string, Array<[string, string[], ((id: string) => boolean)?]>]> = [
    ['one column of a table', 'SELECT l_comment FROM lineitem', [['lineitem', ['l_comment']]]],
    ['LIMIT does not reduce it', 'SELECT l_comment FROM lineitem LIMIT 1', [['lineitem', ['l_comment']]]],
    [
      'filter columns count',
      "SELECT o_orderkey FROM orders WHERE o_orderstatus = 'F'",
      [['orders', ['o_orderkey', 'o_orderstatus']]],
    ],
    ['COUNT(*) reads no column', 'SELECT COUNT(*) FROM partsupp', [['partsupp', []]]],
    [
      'a monthly partition pruned by a constant range',
      "SELECT o_orderkey FROM orders WHERE o_orderdate >= DATE '1995-02-01' AND o_orderdate < DATE '1995-03-01'",
      [['orders', ['o_orderkey', 'o_orderdate'], MONTH]],
    ],
    [
      'a function of the partition column prunes nothing',
      'SELECT o_orderkey FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) = 1995',
      [['orders', ['o_orderkey', 'o_orderdate']]],
    ],
    [
      'daily partitions, BETWEEN',
      "SELECT l_quantity FROM tpch.lineitem WHERE l_shipdate BETWEEN DATE '1996-01-10' AND DATE '1996-01-12'",
      [['lineitem', ['l_quantity', 'l_shipdate'], (id) => id >= '19960110' && id <= '19960112']],
    ],
    [
      'integer-range partitions',
      `SELECT c_name FROM \`sqlgate-test.tpch.customer\` WHERE c_nationkey >= 5 AND c_nationkey < 10`,
      [['customer', ['c_name', 'c_nationkey'], (id) => id === '5']],
    ],
    [
      'a join, per table',
      'SELECT o.o_orderdate, l.l_extendedprice FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey',
      [
        ['orders', ['o_orderdate', 'o_orderkey']],
        ['lineitem', ['l_extendedprice', 'l_orderkey']],
      ],
    ],
  ];
  it.each(cases)('%s', async (_name, sql, reads) => {
    const dry = await (await open(s)).dryRun(sql);
    const expected = reads.reduce((sum, [t, cols, parts]) => sum + s.columnBytes(t, cols, parts), 0);
    expect(dry.bytesProcessed).toBe(expected);
    expect(new Set(dry.referencedTables)).toEqual(
      new Set(reads.map(([t]) => `${s.project}.${s.dataset}.${t}`)),
    );
  });
  it('sizes columns as BigQuery bills them (INT64 8, STRING 2 + UTF-8 bytes), whatever the stand-in measured', async () => {
    const bq = await open(s);
    expect((await bq.dryRun('SELECT n_nationkey FROM nation')).bytesProcessed).toBe(25 * 8);
    const regions = ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'];
    expect((await bq.dryRun('SELECT r_name FROM region')).bytesProcessed).toBe(
      regions.reduce((a, n) => a + 2 + Buffer.byteLength(n), 0),
    );
  });
});

describe('errors and faults', () => {
  it('invalidQuery: query-failed with BigQuery message, line and column', async () => {
    const e = await rejection(
      (await open(s)).execute('SELECT n_name,\n  no_such_column FROM nation', { timeoutMs: 10_000 }),
    );
    expect(e.code).toBe('query-failed');
    expect(e.detail).toContain('no_such_column');
    expect(e.context).toMatchObject({ bigquery_reason: 'invalidQuery', line: 2, column: 3 });
    const dry = await rejection((await open(s)).dryRun('SELECT 1 FROM no_such_table'));
    expect(dry).toMatchObject({ code: 'query-failed', context: { bigquery_reason: 'notFound' } });
  });

  it('maximumBytesBilled refused by BigQuery: bytes-limit-exceeded, and no rows', async () => {
    const e = await rejection(
      (await open(s)).execute('SELECT l_comment FROM lineitem', { timeoutMs: 10_000, maxBytesBilled: 1024 }),
    );
    expect(e).toMatchObject({
      code: 'bytes-limit-exceeded',
      context: { bigquery_reason: 'bytesBilledLimitExceeded' },
    });
  });

  it('the service down (503): warehouse-unavailable, retryable, with Retry-After', async () => {
    s.faults = { unavailable: true };
    const e = await rejection((await open(s)).execute('SELECT 1', { timeoutMs: 10_000 }));
    expect(e).toMatchObject({
      code: 'warehouse-unavailable',
      retryable: true,
      context: { [RETRY_AFTER]: 2 },
    });
    expect(await (await open(s)).ping()).toBe(false);
  });

  it('the endpoint not listening: warehouse-unavailable naming the endpoint', async () => {
    const gone = await startBigQueryStandin();
    const url = gone.url;
    await gone.close();
    const bq = await openBigQuery({
      project: 'p',
      apiEndpoint: url,
      credentials: { kind: 'none' },
      statementTimeoutMs: 5_000,
      catalogTtlMs: 1_000,
      retries: 0,
    });
    const e = await rejection(bq.execute('SELECT 1', { timeoutMs: 5_000 }));
    expect(e).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
    expect(e.detail).toContain(url);
  });

  it('rate limited (429): warehouse-rate-limited with the Retry-After BigQuery sent', async () => {
    s.faults = { rateLimited: { remaining: 1, retryAfterSeconds: 7 } };
    const e = await rejection((await open(s)).execute('SELECT 1', { timeoutMs: 10_000 }));
    expect(e).toMatchObject({
      code: 'warehouse-rate-limited',
      retryable: true,
      context: { [RETRY_AFTER]: 7 },
    });
  });

  it('a page failing mid-result: warehouse-unavailable, not a short count', async () => {
    s.faults = { failPage: 3 };
    const e = await rejection(
      (await open(s)).execute('SELECT a.n_nationkey FROM nation a, nation b, nation c', {
        timeoutMs: 20_000,
      }),
    );
    expect(e).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
  });

  it('a slow job past its deadline is cancelled on BigQuery (jobs.cancel) and reported as query-timeout', async () => {
    s.faults = { jobDelayMs: 5_000 };
    const started = Date.now();
    const e = await rejection((await open(s)).execute('SELECT 1', { timeoutMs: 300, attribution }));
    expect(e.code).toBe('query-timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect
      .poll(() => s.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/cancel')).length)
      .toBe(1);
    const cancelled = s.requests.find((r) => r.path.endsWith('/cancel'))?.path.split('/')[4] ?? '';
    expect(cancelled).toMatch(new RegExp(`^sqlgate_${attribution.traceId}_`));
    expect(s.jobs.get(cancelled)?.error?.reason).toBe('stopped');
  });

  it('the caller aborting cancels the job too', async () => {
    s.faults = { jobDelayMs: 5_000 };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const e = await rejection(
      (await open(s)).execute('SELECT 2', { timeoutMs: 10_000, signal: controller.signal }),
    );
    expect(e.code).toBe('query-failed');
    await expect.poll(() => s.requests.filter((r) => r.path.endsWith('/cancel')).length).toBe(1);
  });

  it('credentials refused (401): warehouse-unavailable naming where they come from, never a secret', async () => {
    s.faults = { requireAuth: true };
    const e = await rejection((await open(s)).execute('SELECT 1', { timeoutMs: 10_000 }));
    expect(e.code).toBe('warehouse-unavailable');
    expect(e.detail).toContain('SQLGATE_BIGQUERY_API_ENDPOINT');
    expect(s.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });
});

describe('catalog from tables.get', () => {
  it('maps columns, keys, time, ingestion-time and range partitioning and clustering; cached for the TTL', async () => {
    const bq = await open(s);
    const names = ['orders', 'lineitem', 'customer', 'part', 'nation'].map((name) => ({ name }));
    const catalog = await bq.introspect(names);
    expect(catalog.tables.get('orders')).toMatchObject({
      primaryKey: ['o_orderkey'],
      partitioning: { column: 'o_orderdate', granularity: 'month', kind: 'column' },
      clustering: ['o_custkey'],
    });
    expect(catalog.tables.get('orders')?.columns.find((c) => c.name === 'o_orderdate')).toMatchObject({
      type: 'date',
      rawType: 'DATE',
    });
    expect(catalog.tables.get('lineitem')?.partitioning).toEqual({
      column: 'l_shipdate',
      granularity: 'day',
      kind: 'column',
    });
    expect(catalog.tables.get('customer')?.rangePartitioning).toEqual({
      column: 'c_nationkey',
      start: 0,
      end: 25,
      interval: 5,
    });
    expect(catalog.tables.get('part')?.partitioning).toEqual({
      column: '_PARTITIONTIME',
      granularity: 'day',
      kind: 'ingestion-time',
    });
    expect(catalog.tables.get('nation')?.columns.map((c) => c.type)).toEqual([
      'int64',
      'string',
      'int64',
      'string',
    ]);
    const gets = s.requests.filter((r) => r.path.includes('/tables/')).length;
    expect(gets).toBe(5);
    await bq.introspect(names);
    expect(s.requests.filter((r) => r.path.includes('/tables/')).length).toBe(gets);
  });
  it('leaves out what it cannot load, and two tables of one name', async () => {
    const bq = await open(s, { catalogTtlMs: 0 });
    const catalog = await bq.introspect([
      { name: 'nope' },
      { name: 'nation' },
      { schema: 'other', name: 'region' },
      { name: 'region' },
    ]);
    expect([...catalog.tables.keys()]).toEqual(['nation']);
    s.faults = { unavailable: true };
    expect((await bq.introspect([{ name: 'nation' }])).tables.size).toBe(0);
    s.faults = {};
    expect((await bq.introspect([{ name: 'nation' }])).tables.size).toBe(1);
  });
});

describe('the stand-in speaks jobs.query as well (the client’s fast path)', () => {
  it('answers BigQuery.query() with rows and a job reference', async () => {
    const { BigQuery } = await import('@google-cloud/bigquery');
    const { NoCredentials } = await import('../../src/warehouses/bigquery-auth.ts');
    const client = new BigQuery({
      projectId: s.project,
      apiEndpoint: s.url,
      authClient: new NoCredentials(),
    });
    const [rows] = await client.query({
      query: 'SELECT r_name FROM tpch.region ORDER BY r_name',
      labels: { a: 'b' },
    });
    expect(rows.map((r: { r_name: string }) => r.r_name)).toEqual([
      'AFRICA',
      'AMERICA',
      'ASIA',
      'EUROPE',
      'MIDDLE EAST',
    ]);
    expect(s.requests.some((r) => r.method === 'POST' && r.path.endsWith('/queries'))).toBe(true);
  });
});
