import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { auroraHeuristic } from '../../src/core/cost/models/heuristic.ts';
import { buildApp } from '../../src/http/app.ts';
import { createMetrics } from '../../src/http/metrics.ts';
import type { Services } from '../../src/http/services.ts';
import { openStore } from '../../src/runtime.ts';
import { createApiKeyService } from '../../src/services/api-keys.ts';
import { createQueryService } from '../../src/services/run-query.ts';
import { openAuroraPostgres } from '../../src/warehouses/aurora-postgres.ts';
import { createRegistry } from '../../src/warehouses/registry.ts';
import { createPgTpchSchema } from '../support/pg-schema.ts';
import { duckDbTpchRowCounts, tpchQueries } from '../support/tpch-duckdb.ts';

const baseUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (baseUrl === undefined)
  console.info('POST /query on connected aurora skipped: SQLGATE_TEST_POSTGRES_URL is not set');

/**
 * POST /query through the HTTP app with `aurora` connected to PostgreSQL (wired here by hand: the composition
 * root does not connect aurora yet). A few TPC-H queries give DuckDB's row counts; a write is refused.
 */
describe.skipIf(baseUrl === undefined)('POST /query on connected aurora (PostgreSQL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-http-aurora-'));
  let app!: Awaited<ReturnType<typeof buildApp>>;
  let services!: Services;
  let drop: () => Promise<void> = () => Promise.resolve();
  let key = '';
  let expected = new Map<string, number>();

  beforeAll(async () => {
    const db = await createPgTpchSchema(baseUrl ?? '');
    drop = db.drop;
    const config = loadConfig({ SQLGATE_DATA_DIR: dataDir, SQLGATE_DEFAULT_WAREHOUSE: 'aurora' });
    const store = await openStore(config);
    const adapter = openAuroraPostgres({
      url: db.url,
      poolSize: 2,
      statementTimeoutMs: 30_000,
      catalogTtlMs: 60_000,
    });
    const warehouses = createRegistry([
      {
        name: 'aurora',
        mode: 'connected',
        dialect: 'postgres',
        adapter,
        costModel: auroraHeuristic({ usdPerMillionIo: 0.2, usdPerAcuHour: 0.12 }),
        pricing: {},
      },
    ]);
    const queries = createQueryService({
      db: store,
      warehouses,
      defaultWarehouse: 'aurora',
      settings: {
        budgetMs: config.rewriteBudgetMs,
        disabled: new Set(config.rewriteDisable),
        maxQueryBytes: config.maxQueryBytes,
      },
      statementTimeoutMs: config.statementTimeoutMs,
    });
    services = {
      db: store,
      warehouses,
      keys: createApiKeyService(store),
      queries,
      metrics: createMetrics(false),
    };
    app = await buildApp(config, services, { logger: false });
    key = (await services.keys.create({ accountEmail: 'aurora-test@example.com' })).key;
    expected = await duckDbTpchRowCounts();
  });
  afterAll(async () => {
    await app?.close();
    await services?.warehouses.close();
    await services?.db.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (query: string) =>
    app.inject({
      method: 'POST',
      url: '/query',
      headers: { authorization: `Bearer ${key}` },
      payload: { query, warehouse: 'aurora' },
    });

  for (const name of ['q01', 'q06', 'q10', 'q13'])
    it(`${name} returns DuckDB's row count`, async () => {
      const sql = tpchQueries().find((q) => q.name === name)?.sql ?? '';
      const res = await post(sql);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ rows: number }>().rows).toBe(expected.get(name));
    });

  it('refuses a write before it reaches the warehouse (403)', async () => {
    const res = await post('DELETE FROM lineitem');
    expect(res.statusCode).toBe(403);
  });
});
