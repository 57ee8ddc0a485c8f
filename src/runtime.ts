import { join } from 'node:path';
import type { Config } from './config.ts';
import { bigQueryByteModel } from './core/cost/models/bigquery-bytes.ts';
import { auroraHeuristic, snowflakeHeuristic } from './core/cost/models/heuristic.ts';
import { createMetrics } from './http/metrics.ts';
import type { Services } from './http/services.ts';
import { createApiKeyService } from './services/api-keys.ts';
import { createDashboardAuthService } from './services/dashboard-auth.ts';
import { createQueryService } from './services/run-query.ts';
import { createWebhookService } from './services/webhooks.ts';
import { createDispatcher } from './jobs/dispatcher.ts';
import { createSender } from './jobs/send-webhook.ts';
import { DEFAULT_RETRY_POLICY } from './jobs/retry-policy.ts';
import { openEmbeddedDb, openServerDb } from './store/db.ts';
import type { Db } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import type { WarehouseAdapter } from './warehouses/adapter.ts';
import { openDuckDbLocal } from './warehouses/duckdb-local.ts';
import { createRegistry } from './warehouses/registry.ts';
import type { Warehouse } from './warehouses/registry.ts';

/** Opens the state store (embedded PGlite under the data dir, or a PostgreSQL server) and migrates it. */
export const openStore = async (config: Config): Promise<Db> => {
  const db =
    config.databaseUrl !== undefined
      ? await openServerDb(config.databaseUrl)
      : await openEmbeddedDb(join(config.dataDir, 'state'));
  await migrate(db);
  return db;
};

/** The composition root's wiring, shared by `sqlgate serve` and the tests. */
export const createServices = async (
  config: Config,
  opts: { progress: (m: string) => void; metrics?: boolean },
): Promise<Services> => {
  const db = await openStore(config);
  const local: WarehouseAdapter = await openDuckDbLocal({
    ...(config.duckdbPath !== undefined ? { path: config.duckdbPath } : {}),
    dataDir: config.dataDir,
    demoScale: config.demoScale,
    connections: 4,
    progress: opts.progress,
  });
  // Statistics are read once at start, not on the first request.
  await local.introspect();
  const bigqueryPricing = {
    usd_per_tib: config.bigqueryUsdPerTib,
    minimum_mib_per_table: 10,
    minimum_mib_per_query: 10,
  };
  const warehouses: Warehouse[] = [
    {
      name: 'bigquery',
      mode: 'local',
      dialect: 'bigquery',
      adapter: local,
      costModel: bigQueryByteModel({ usdPerTib: config.bigqueryUsdPerTib }),
      pricing: bigqueryPricing,
    },
    {
      name: 'snowflake',
      mode: 'local',
      dialect: 'snowflake',
      adapter: local,
      costModel: snowflakeHeuristic({
        usdPerCredit: config.snowflakeUsdPerCredit,
        creditsPerHour: config.snowflakeWarehouseCreditsPerHour,
      }),
      pricing: {
        usd_per_credit: config.snowflakeUsdPerCredit,
        credits_per_hour: config.snowflakeWarehouseCreditsPerHour,
      },
    },
    {
      name: 'aurora',
      mode: 'local',
      dialect: 'postgres',
      adapter: local,
      costModel: auroraHeuristic({
        usdPerMillionIo: config.auroraUsdPerMillionIo,
        usdPerAcuHour: config.auroraUsdPerAcuHour,
      }),
      pricing: {
        usd_per_million_io: config.auroraUsdPerMillionIo,
        usd_per_acu_hour: config.auroraUsdPerAcuHour,
      },
    },
  ];
  const registry = createRegistry(warehouses);
  const keys = createApiKeyService(db);
  const webhookDispatcher = createDispatcher({
    db,
    sender: createSender({
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: config.webhookAllowPrivateNetworks,
    }),
    policy: {
      ...DEFAULT_RETRY_POLICY,
      baseMs: config.webhookRetryBaseMs,
      maxDelayMs: config.webhookRetryMaxDelayMs,
      horizonMs: config.webhookRetryHorizonMs,
    },
    pollMs: config.webhookPollMs,
    concurrency: config.webhookConcurrency,
    timeoutMs: config.webhookTimeoutMs,
    onError: (e) => {
      // Never the payload or secrets: the error's name and message only.
      if (config.logLevel !== 'silent')
        process.stderr.write(
          `webhook dispatcher: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}\n`,
        );
    },
  });
  const webhooks = createWebhookService({
    db,
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    notify: () => webhookDispatcher.wake(),
  });
  const queries = createQueryService({
    db,
    warehouses: registry,
    defaultWarehouse: config.defaultWarehouse,
    settings: {
      budgetMs: config.rewriteBudgetMs,
      disabled: new Set(config.rewriteDisable),
      maxQueryBytes: config.maxQueryBytes,
    },
    statementTimeoutMs: config.statementTimeoutMs,
    onLogged: webhooks.onQueryLogged,
  });
  return {
    db,
    warehouses: registry,
    keys,
    queries,
    metrics: createMetrics(opts.metrics ?? true),
    dashboardAuth: createDashboardAuthService(db, config.sessionTtlMinutes * 60_000),
    webhooks,
    webhookDispatcher,
  };
};

export const closeServices = async (s: Services): Promise<void> => {
  await s.webhookDispatcher.stop();
  await s.warehouses.close();
  await s.db.close();
};
