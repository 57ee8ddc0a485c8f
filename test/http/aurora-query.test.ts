import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import type { Services } from '../../src/http/services.ts';
import { closeServices, createServices } from '../../src/runtime.ts';
import { createMysqlTpchDatabase } from '../support/mysql-database.ts';
import { createPgTpchSchema } from '../support/pg-schema.ts';
import { duckDbTpchRowCounts, tpchQueries } from '../support/tpch-duckdb.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
const myUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (pgUrl === undefined)
  console.info('POST /query on aurora-postgres skipped: SQLGATE_TEST_POSTGRES_URL is not set');
if (myUrl === undefined)
  console.info('POST /query on aurora-mysql skipped: SQLGATE_TEST_MYSQL_URL is not set');

const MYSQL_DIR = join(import.meta.dirname, '..', 'warehouses', 'tpch-mysql');

/** The spelling each engine reads: corpus q03 casts AS STRING, which PostgreSQL calls TEXT. */
const spellings = (flavour: 'postgres' | 'mysql') =>
  tpchQueries().map((q) => ({
    name: q.name,
    sql:
      flavour === 'postgres'
        ? q.sql.replace(/AS STRING\)/gi, 'AS TEXT)')
        : readFileSync(join(MYSQL_DIR, `${q.name}.sql`), 'utf8'),
  }));

/**
 * POST /query and GET /cost through the HTTP app with `aurora` connected (SQLGATE_AURORA_URL) to the
 * machine's PostgreSQL and MariaDB, holding the TPC-H corpus: every query gives DuckDB's row count.
 */
describe.each([
  { flavour: 'postgres' as const, base: pgUrl, create: createPgTpchSchema },
  { flavour: 'mysql' as const, base: myUrl, create: createMysqlTpchDatabase },
])('connected aurora ($flavour)', ({ flavour, base, create }) => {
  const dataDir = mkdtempSync(join(tmpdir(), `sqlgate-http-aurora-${flavour}-`));
  let app: App | undefined;
  let services: Services | undefined;
  let drop: () => Promise<void> = () => Promise.resolve();
  let key = '';
  let expected = new Map<string, number>();

  beforeAll(async () => {
    if (base === undefined) return;
    const db = await create(base);
    drop = db.drop;
    const config = loadConfig({
      SQLGATE_DATA_DIR: dataDir,
      SQLGATE_DEFAULT_WAREHOUSE: 'aurora',
      SQLGATE_AURORA_URL: db.url,
      // The test server's superuser, on purpose (docs/security.md: the role check).
      SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: 'true',
      SQLGATE_AURORA_POOL_SIZE: '2',
      SQLGATE_DEMO_SCALE: '0.01',
      SQLGATE_LOG_LEVEL: 'silent',
    });
    services = await createServices(config, { progress: () => undefined, metrics: false });
    app = await buildApp(config, services, { logger: false });
    key = (await services.keys.create({ accountEmail: 'aurora-test@example.com' })).key;
    expected = await duckDbTpchRowCounts();
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    if (services) await closeServices(services);
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (query: string) =>
    app!.inject({
      method: 'POST',
      url: '/query',
      headers: { authorization: `Bearer ${key}` },
      payload: { query, warehouse: 'aurora' },
    });

  it.skipIf(base === undefined)('GET /warehouses shows aurora connected in its dialect', async () => {
    const res = await app!.inject({
      method: 'GET',
      url: '/warehouses',
      headers: { authorization: `Bearer ${key}` },
    });
    const aurora = res
      .json<{ warehouses: Array<Record<string, unknown>> }>()
      .warehouses.find((w) => w.name === 'aurora');
    expect(aurora).toMatchObject({ mode: 'connected', dialect: flavour });
  });

  for (const q of spellings(flavour)) {
    it.skipIf(base === undefined)(`${q.name} returns DuckDB's row count`, async () => {
      const res = await post(q.sql);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ rows: number }>().rows).toBe(expected.get(q.name));
    });
  }

  it.skipIf(base === undefined)('GET /cost prices from EXPLAIN without running the query', async () => {
    const query = 'SELECT l_returnflag, count(*) FROM lineitem WHERE l_quantity > 10 GROUP BY l_returnflag';
    const res = await app!.inject({
      method: 'GET',
      url: `/cost?${new URLSearchParams({ query, warehouse: 'aurora' }).toString()}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<Record<string, unknown>>();
    expect(body.method).toBe('explain');
    expect(body.original_cost as number).toBeGreaterThan(0);
    expect((body.assumptions as Record<string, unknown>).usd_per_million_io_requests).toBe(0.2);
  });

  it.skipIf(base === undefined)('refuses writes, also hidden in a CTE (403)', async () => {
    expect((await post('DELETE FROM lineitem')).statusCode).toBe(403);
    expect((await post('WITH d AS (DELETE FROM nation RETURNING *) SELECT * FROM d')).statusCode).toBe(403);
  });
});
