import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBigQueryGateway } from '../support/bigquery-gateway.ts';
import type { BigQueryStandin } from '../support/bigquery-standin.ts';
import type { TestGateway } from '../support/app.ts';

const MIB = 1024 * 1024;
const TIB = 1024 ** 4;
const QUERY = 'SELECT n_name FROM nation WHERE n_regionkey = 1';

let s: BigQueryStandin;
let gw: TestGateway;
let close: () => Promise<void> = () => Promise.resolve();
beforeAll(async () => {
  ({ s, gw, close } = await startBigQueryGateway());
}, 120_000);
afterAll(() => close());

const jobConfig = (): Record<string, unknown> | undefined =>
  s.requests
    .filter(
      (r) =>
        r.method === 'POST' &&
        r.path.endsWith('/jobs') &&
        (r.body?.configuration as { dryRun?: boolean }).dryRun !== true,
    )
    .at(-1)?.body?.configuration as Record<string, unknown> | undefined;

describe('guardrails on connected BigQuery (stand-in)', () => {
  it('max_bytes_per_query is sent as maximumBytesBilled, and checked on the dry run first', async () => {
    const keyId = (await gw.services.keys.list())[0]?.id ?? '';
    await gw.app.inject({
      method: 'PUT',
      url: `/keys/${keyId}/limits`,
      headers: gw.auth,
      payload: { max_bytes_per_query: 20 * MIB },
    });
    const res = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: gw.auth,
      payload: { query: QUERY },
    });
    expect(res.statusCode).toBe(200);
    expect(jobConfig()).toMatchObject({ query: { maximumBytesBilled: String(20 * MIB) } });

    await gw.app.inject({
      method: 'PUT',
      url: `/keys/${keyId}/limits`,
      headers: gw.auth,
      payload: { max_bytes_per_query: MIB },
    });
    const before = s.requests.length;
    const refused = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: gw.auth,
      payload: { query: 'SELECT n_comment FROM nation' },
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({
      code: 'cost-limit-exceeded',
      limit: { max_bytes_per_query: MIB, scope: 'key' },
      estimate: { method: 'dry_run', bytes_billed: 10 * MIB },
    });
    // Only dry runs: no job ran.
    expect(
      s.requests
        .slice(before)
        .filter(
          (r) => r.path.endsWith('/jobs') && (r.body?.configuration as { dryRun?: boolean }).dryRun !== true,
        ),
    ).toHaveLength(0);
    await gw.app.inject({ method: 'PUT', url: `/keys/${keyId}/limits`, headers: gw.auth, payload: {} });
  });

  it('spend is what BigQuery billed: a cache hit (0 bytes billed) adds nothing', async () => {
    const usage = async (): Promise<number> => {
      const res = await gw.app.inject({ method: 'GET', url: '/usage?period=month', headers: gw.auth });
      return res.json<{ account: { spent_usd: number } }>().account.spent_usd;
    };
    const q = 'SELECT n_name, n_regionkey FROM nation WHERE n_nationkey < 7';
    const start = await usage();
    const first = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: gw.auth,
      payload: { query: q },
    });
    expect(first.json()).toMatchObject({ cache_hit: false, bytes_billed: 10 * MIB });
    const afterFirst = await usage();
    expect(afterFirst - start).toBeCloseTo((10 * MIB * 6.25) / TIB, 12);
    const second = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: gw.auth,
      payload: { query: q },
    });
    expect(second.json()).toMatchObject({ cache_hit: true, bytes_billed: 0 });
    expect(await usage()).toBeCloseTo(afterFirst, 12);
  });
});

describe('rows from connected BigQuery (stand-in)', () => {
  it('return_rows and NDJSON page through getQueryResults with exact values', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: gw.auth,
      payload: {
        query:
          'SELECT n_nationkey, n_name, CAST(9223372036854775807 AS INT64) AS big FROM nation ORDER BY n_nationkey',
        return_rows: true,
        max_rows: 2,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ data: unknown[]; truncated: boolean; rows: number; columns: unknown[] }>();
    expect(body).toMatchObject({ rows: 25, truncated: true });
    expect(body.data).toEqual([
      { n_nationkey: 0, n_name: 'ALGERIA', big: '9223372036854775807' },
      { n_nationkey: 1, n_name: 'ARGENTINA', big: '9223372036854775807' },
    ]);
    const nd = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: { ...gw.auth, accept: 'application/x-ndjson' },
      payload: { query: 'SELECT n_name FROM nation' },
    });
    const lines = nd.body.trimEnd().split('\n');
    expect(lines).toHaveLength(27);
    expect(JSON.parse(lines[26] ?? '{}')).toMatchObject({ complete: true, rows: 25 });
    expect(JSON.parse(lines[26] ?? '{}')).toHaveProperty('job_id');
  });
});
