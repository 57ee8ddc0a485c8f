import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import type { Services } from '../../src/http/services.ts';
import { closeServices, createServices } from '../../src/runtime.ts';
import { EXACT_VALUES } from '../support/exact-values.ts';
import { readThenPause } from '../support/paused-reader.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
const myUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (pgUrl === undefined)
  console.info('rows from aurora-postgres skipped: SQLGATE_TEST_POSTGRES_URL is not set');
if (myUrl === undefined) console.info('rows from aurora-mysql skipped: SQLGATE_TEST_MYSQL_URL is not set');

/** Ports of this suite (the guardrails range). */
const PORT = { postgres: 26310, mysql: 26311 } as const;

const startAurora = async (url: string, port: number) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-rows-aurora-'));
  const config = loadConfig({
    SQLGATE_DATA_DIR: dataDir,
    SQLGATE_AURORA_URL: url,
    SQLGATE_AURORA_POOL_SIZE: '2',
    // The machine's admin role: these tests are about rows, not the role check.
    SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: 'true',
    SQLGATE_DEMO_SCALE: '0.002',
    SQLGATE_LOG_LEVEL: 'silent',
  });
  const services: Services = await createServices(config, { progress: () => undefined, metrics: false });
  const app: App = await buildApp(config, services, { logger: false });
  const base = await app.listen({ host: '127.0.0.1', port });
  const key = (await services.keys.create({ accountEmail: 'rows-aurora@example.com' })).key;
  return {
    app,
    base,
    key,
    close: async () => {
      await app.close();
      await closeServices(services);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
type Gw = Awaited<ReturnType<typeof startAurora>>;

const rowsOf = async (gw: Gw, query: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await gw.app.inject({
    method: 'POST',
    url: '/query',
    headers: { authorization: `Bearer ${gw.key}` },
    payload: { warehouse: 'aurora', query, return_rows: true },
  });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
};

describe.skipIf(pgUrl === undefined)('rows from aurora-postgres', () => {
  let gw: Gw;
  let admin: pg.Client;
  beforeAll(async () => {
    gw = await startAurora(pgUrl ?? '', PORT.postgres);
    admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await gw?.close();
  });

  it('keeps values exact: int8 and numeric beyond 2^53 as strings, ISO timestamps, base64 bytes', async () => {
    const { status, body } = await rowsOf(
      gw,
      `SELECT CAST(9223372036854775807 AS bigint) AS big, CAST(-9007199254740993 AS bigint) AS neg,
        CAST(9007199254740991 AS bigint) AS safe, CAST('123456789012345678901234.5678' AS numeric) AS dec,
        CAST('2.50' AS numeric(6,2)) AS two, CAST('0.1' AS double precision) AS f,
        CAST('NaN' AS double precision) AS nan, DATE '2024-02-29' AS d,
        TIMESTAMP '2024-01-02 03:04:05.123456' AS ts, CAST('2024-01-02 03:04:05+02' AS timestamptz) AS tz,
        CAST('Hi' AS bytea) AS b, true AS yes, CAST(NULL AS int) AS nothing, 'x' AS t`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect((body.data as unknown[])[0]).toEqual({ ...EXACT_VALUES, tz: '2024-01-02T01:04:05Z' });
    expect(body.columns).toEqual(
      expect.arrayContaining([
        { name: 'big', type: 'int8' },
        { name: 'dec', type: 'numeric' },
        { name: 'tz', type: 'timestamptz' },
      ]),
    );
  });

  const streaming = async (): Promise<number> => {
    const { rows } = await admin.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM pg_stat_activity
       WHERE query LIKE 'FETCH FORWARD % FROM sqlgate_rows' AND state IN ('active', 'idle in transaction')
       AND pid <> pg_backend_pid()`,
    );
    return Number(rows[0]?.n);
  };
  const until = async (p: () => Promise<boolean>, ms: number): Promise<boolean> => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (await p()) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  };

  it('a client going away mid-stream ends the statement and its transaction on the server', async () => {
    const req = request(`${gw.base}/query`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gw.key}`,
        'content-type': 'application/json',
        accept: 'application/x-ndjson',
      },
    });
    // Two small series joined: rows stream at once (one large series would be materialized before the first).
    req.end(
      JSON.stringify({
        warehouse: 'aurora',
        query:
          'SELECT a.g * 100000 + b.g AS n FROM generate_series(1, 20000) AS a(g), generate_series(1, 100000) AS b(g)',
      }),
    );
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    expect(res.statusCode).toBe(200);
    // Read a little, then stop reading: back-pressure holds the cursor open between FETCHes.
    await readThenPause(res);
    expect(await until(async () => (await streaming()) > 0, 5_000)).toBe(true);
    req.destroy();
    expect(await until(async () => (await streaming()) === 0, 10_000)).toBe(true);
    const ok = await rowsOf(gw, 'SELECT 1 AS one');
    expect(ok.body.data).toEqual([{ one: 1 }]);
  }, 60_000);
});

describe.skipIf(myUrl === undefined)('rows from aurora-mysql', () => {
  let gw: Gw;
  beforeAll(async () => {
    gw = await startAurora(myUrl ?? '', PORT.mysql);
  }, 120_000);
  afterAll(async () => {
    await gw?.close();
  });

  it('keeps values exact: BIGINT and DECIMAL beyond 2^53 as strings, ISO datetimes, base64 bytes', async () => {
    const { status, body } = await rowsOf(
      gw,
      `SELECT CAST(9223372036854775807 AS SIGNED) AS big, CAST(42 AS SIGNED) AS small,
        CAST('12345678901234567890.125' AS DECIMAL(30,3)) AS num, CAST('2.50' AS DECIMAL(6,2)) AS two,
        DATE '2024-02-29' AS d, CAST('2024-01-02 03:04:05.250' AS DATETIME(3)) AS ts,
        CAST('Hi' AS BINARY) AS b, NULL AS nothing, 'x' AS t`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect((body.data as unknown[])[0]).toEqual({
      big: '9223372036854775807',
      small: 42,
      num: '12345678901234567890.125',
      two: 2.5,
      d: '2024-02-29',
      ts: '2024-01-02T03:04:05.250',
      b: 'SGk=',
      nothing: null,
      t: 'x',
    });
  });
});
