import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';
import { snowflakeKeys, snowflakeEnv } from '../support/snowflake-keys.ts';
import { startSnowflakeStandin } from '../support/snowflake-standin.ts';
import type { SnowflakeStandin } from '../support/snowflake-standin.ts';
import { EXACT_VALUES } from '../support/exact-values.ts';
import { readThenPause } from '../support/paused-reader.ts';

/**
 * Rows from snowflake (capability `rows`): POST /query with `return_rows` and with Accept: application/x-ndjson,
 * through `snowflake-sdk`'s streamRows to the local stand-in (port 26330; HTTP port 26331 for the disconnect),
 * which sends the first rows inline and the rest as result chunks (small ones here, so that results span many).
 */
const FIRST_ROWS = 100;
const CHUNK_ROWS = 200;

let s: SnowflakeStandin;
let gw: TestGateway;
let dir: string;
let base: string;
beforeAll(async () => {
  const keys = snowflakeKeys();
  dir = mkdtempSync(join(tmpdir(), 'sqlgate-rows-snowflake-'));
  s = await startSnowflakeStandin({
    port: 26330,
    publicKey: keys.publicKey,
    holdMs: 50,
    firstRows: FIRST_ROWS,
    chunkRows: CHUNK_ROWS,
  });
  gw = await startTestGateway({
    ...snowflakeEnv(s, keys.privateKey, dir),
    SQLGATE_DEFAULT_WAREHOUSE: 'snowflake',
    SQLGATE_RATE_LIMIT_PER_MINUTE: '100000',
  });
  base = await gw.app.listen({ host: '127.0.0.1', port: 26331 });
}, 120_000);
afterAll(async () => {
  await gw?.close();
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  s.faults = {};
  s.requests.length = 0;
});

const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  gw.app.inject({ method: 'POST', url: '/query', headers: { ...gw.auth, ...headers }, payload: body });

/** Result chunks the driver downloaded since the test began. */
const chunkRequests = (): number => s.requests.filter((r) => r.path.startsWith('/chunks/')).length;

const LINEITEM = 'SELECT l_orderkey, l_linenumber, l_quantity, l_shipdate, l_comment FROM lineitem';

describe('rows from snowflake', () => {
  it('keeps values exact: NUMBER beyond 2^53 as strings, decimals, floats, ISO dates and timestamps, base64 binary', async () => {
    const res = await post({
      query: `SELECT CAST(9223372036854775807 AS NUMBER(19,0)) AS big, CAST(-9007199254740993 AS NUMBER(19,0)) AS neg,
        CAST(9007199254740991 AS NUMBER(19,0)) AS safe, CAST('123456789012345678901234.5678' AS NUMBER(38,4)) AS dec,
        CAST('2.50' AS NUMBER(6,2)) AS two, CAST('0.1' AS DOUBLE) AS f, CAST('NaN' AS DOUBLE) AS nan,
        CAST('2024-02-29' AS DATE) AS d, CAST('2024-01-02 03:04:05.123456' AS TIMESTAMP_NTZ) AS ts,
        CAST('4869' AS BINARY) AS b, TRUE AS yes, CAST(NULL AS INT) AS nothing, 'x' AS t`,
      return_rows: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<Record<string, unknown>>();
    expect(body.data).toEqual([EXACT_VALUES]);
    expect(body.columns).toEqual(
      expect.arrayContaining([
        { name: 'big', type: 'NUMBER(19,0)' },
        { name: 'dec', type: 'NUMBER(38,4)' },
        { name: 'f', type: 'FLOAT' },
        { name: 'd', type: 'DATE' },
        { name: 'ts', type: 'TIMESTAMP_NTZ' },
        { name: 'b', type: 'BINARY' },
        { name: 't', type: 'VARCHAR' },
      ]),
    );
    expect(body.truncated).toBe(false);
  });

  it('return_rows keeps max_rows rows of a result spanning chunks and says it truncated', async () => {
    const res = await post({
      query: 'SELECT o_orderkey, o_orderdate FROM orders ORDER BY o_orderkey',
      return_rows: true,
      max_rows: 5,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ rows: number; data: unknown[]; truncated: boolean }>();
    expect(body.rows).toBeGreaterThan(FIRST_ROWS + CHUNK_ROWS);
    expect(body.data).toHaveLength(5);
    expect(body.truncated).toBe(true);
    const keys = (body.data as Array<{ o_orderkey: number; o_orderdate: string }>).map((r) => r.o_orderkey);
    // The first rows of the ordered result, in order.
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    expect(new Set(keys).size).toBe(5);
    expect((body.data[0] as { o_orderdate: string }).o_orderdate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('streams NDJSON: the head with columns, one object per row across chunks, the tail with rows and cost', async () => {
    const count = await post({ query: 'SELECT count(*) AS n FROM lineitem', return_rows: true });
    const n = (count.json<{ data: Array<{ n: number }> }>().data[0] ?? { n: 0 }).n;
    expect(n).toBeGreaterThan(FIRST_ROWS + 2 * CHUNK_ROWS);
    const res = await post({ query: LINEITEM }, { accept: 'application/x-ndjson' });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.body.trimEnd().split('\n');
    expect(lines).toHaveLength(n + 2);
    const head = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(head.columns).toEqual([
      { name: 'l_orderkey', type: 'NUMBER(38,0)' },
      { name: 'l_linenumber', type: 'NUMBER(38,0)' },
      { name: 'l_quantity', type: expect.stringMatching(/^(NUMBER\(\d+,\d+\)|FLOAT)$/) as unknown },
      { name: 'l_shipdate', type: 'DATE' },
      { name: 'l_comment', type: 'VARCHAR' },
    ]);
    const row = JSON.parse(lines[1] ?? '{}') as Record<string, unknown>;
    expect(Object.keys(row)).toEqual(['l_orderkey', 'l_linenumber', 'l_quantity', 'l_shipdate', 'l_comment']);
    expect(row.l_shipdate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const tail = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
    expect(tail).toMatchObject({ complete: true, rows: n, query_id: expect.any(String) as unknown });
    expect(chunkRequests()).toBeGreaterThanOrEqual(2);
  });

  it('a client going away mid-stream stops the chunk downloads and cancels the statement on Snowflake', async () => {
    const total = Math.ceil(
      ((await post({ query: 'SELECT count(*) AS n FROM lineitem', return_rows: true })).json<{
        data: Array<{ n: number }>;
      }>().data[0]?.n ?? 0) / CHUNK_ROWS,
    );
    const abortsBefore = s.aborts.length;
    s.requests.length = 0;
    const req = request(`${base}/query`, {
      method: 'POST',
      headers: { ...gw.auth, 'content-type': 'application/json', accept: 'application/x-ndjson' },
    });
    // A wide row (the comment repeated) so that a paused client fills the socket long before the result ends.
    req.end(JSON.stringify({ query: `SELECT l_orderkey, REPEAT(l_comment, 40) AS c FROM lineitem` }));
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    expect(res.statusCode).toBe(200);
    await readThenPause(res);
    // Back-pressure: with the client not reading, the driver stops asking for chunks.
    await new Promise((r) => setTimeout(r, 1_000));
    const held = chunkRequests();
    await new Promise((r) => setTimeout(r, 500));
    expect(chunkRequests()).toBe(held);
    expect(held).toBeLessThan(total);
    req.destroy();
    const until = Date.now() + 10_000;
    while (s.aborts.length === abortsBefore && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    expect(s.aborts.length).toBeGreaterThan(abortsBefore);
    expect(chunkRequests()).toBe(held);
    // The session went back to the pool in working order.
    const ok = await post({ query: 'SELECT 1 AS one', return_rows: true });
    expect(ok.json<{ data: unknown }>().data).toEqual([{ one: 1 }]);
  }, 60_000);
});
