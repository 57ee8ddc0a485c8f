import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config.ts';
import type { Config } from './config.ts';
import { RULES } from './core/rewrite/rules/index.ts';
import { clusterMetricsOf } from './cluster-metrics.ts';
import { createMetrics } from './http/metrics.ts';
import type { Replica, Services } from './http/services.ts';
import { createRedisRateLimiter } from './services/rate-limiter.ts';
import type { RateLimiter } from './services/rate-limiter.ts';
import { listenKeyChanges } from './store/key-changes.ts';
import type { KeyChangeFeed } from './store/key-changes.ts';
import { openRedis, pingRedis, redisReady } from './store/redis.ts';
import { createApiKeyService } from './services/api-keys.ts';
import { createDashboardAuthService } from './services/dashboard-auth.ts';
import { createAccountConcurrency } from './services/account-concurrency.ts';
import type { AccountConcurrency } from './services/account-concurrency.ts';
import { createQueryService } from './services/run-query.ts';
import { createGuardrails } from './services/guardrails.ts';
import type { Guardrails } from './services/guardrails.ts';
import { createSqlWorkerPool } from './services/sql-worker-pool.ts';
import type { SqlWorkerPool } from './services/sql-worker-pool.ts';
import type { QueryOutbox, QueryService } from './services/run-query.ts';
import { createVerifyService } from './services/verify-results.ts';
import { openQuarantineCache } from './services/rule-quarantine.ts';
import type { QuarantineCache } from './services/rule-quarantine.ts';
import { createShadowVerifier } from './services/shadow-verifier.ts';
import type { ShadowVerifier } from './services/shadow-verifier.ts';
import type { Metrics } from './http/metrics.ts';
import { createWebhookService } from './services/webhooks.ts';
import type { Dispatcher } from './jobs/dispatcher.ts';
import { describeError, dispatcherFromSettings, dispatcherProxy } from './jobs/dispatcher-host.ts';
import type { DispatcherSettings, ErrorSummary } from './jobs/dispatcher-host.ts';
import { createForegroundGauge } from './jobs/foreground.ts';
import type { ForegroundGauge } from './jobs/foreground.ts';
import { DEFAULT_RETRY_POLICY } from './jobs/retry-policy.ts';
import { openEmbeddedDb, openEmbeddedDbWorker, openServerDb } from './store/db.ts';
import type { Db } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import type { WarehouseAdapter } from './warehouses/adapter.ts';
import type { OpenContext } from './warehouses/definition.ts';
import { openDuckDbLocal } from './warehouses/duckdb-local.ts';
import { WAREHOUSES } from './warehouses/index.ts';
import { createRegistry } from './warehouses/registry.ts';
import type { WarehouseRegistry } from './warehouses/registry.ts';

/** Opens the state store (embedded PGlite under the data dir, or a PostgreSQL server) and migrates it. */
export const openStore = async (config: Config): Promise<Db> => {
  const db =
    config.databaseUrl !== undefined
      ? await openServerDb(config.databaseUrl)
      : await openEmbeddedDb(join(config.dataDir, 'state'));
  await migrate(db);
  return db;
};

/**
 * The store and the webhook dispatcher, migrated. On the embedded store the dispatcher runs in the store's
 * worker thread (embedded-worker.ts), beside PGlite, and the one returned is a proxy to it: signing, sending
 * and recording never run on the thread that serves requests. On a PostgreSQL store it runs here, on
 * `db.background()` (the store itself).
 */
export const openDispatchingStore = async (
  config: Config,
  onError: (e: ErrorSummary) => void,
  foreground?: ForegroundGauge,
): Promise<{ db: Db; dispatcher: Dispatcher }> => {
  const settings: Omit<DispatcherSettings, 'senderThread'> = {
    ...(foreground ? { foreground: { buffer: foreground.buffer, maxWaitMs: config.webhookYieldMs } } : {}),
    timeoutMs: config.webhookTimeoutMs,
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    policy: {
      ...DEFAULT_RETRY_POLICY,
      baseMs: config.webhookRetryBaseMs,
      maxDelayMs: config.webhookRetryMaxDelayMs,
      horizonMs: config.webhookRetryHorizonMs,
    },
    pollMs: config.webhookPollMs,
    idlePollMs: config.webhookIdlePollMs,
    concurrency: config.webhookConcurrency,
  };
  if (config.databaseUrl !== undefined) {
    const db = await openServerDb(config.databaseUrl);
    await migrate(db);
    return {
      db,
      dispatcher: dispatcherFromSettings(db.background(), { ...settings, senderThread: true }, onError),
    };
  }
  const { db, ext } = await openEmbeddedDbWorker(join(config.dataDir, 'state'), {
    script: new URL('./embedded-worker.ts', import.meta.url),
    data: { ...settings, senderThread: false },
    onEvent: (e) => onError(e as ErrorSummary),
  });
  await migrate(db);
  return { db, dispatcher: dispatcherProxy(ext, onError) };
};

/**
 * Opens every registered warehouse from its own settings (connected, or local mode). The embedded engine is
 * opened once, on the first local warehouse's demand, with its statistics read at start, not on a request.
 */
export const openWarehouses = async (
  config: Config,
  progress: (m: string) => void,
): Promise<WarehouseRegistry> => {
  let engine: Promise<WarehouseAdapter> | undefined;
  const ctx: OpenContext = {
    statementTimeoutMs: config.statementTimeoutMs,
    catalogTtlMs: config.catalogTtlMs,
    localEngine: () =>
      (engine ??= openDuckDbLocal({
        ...(config.duckdbPath !== undefined ? { path: config.duckdbPath } : {}),
        dataDir: config.dataDir,
        demoScale: config.demoScale,
        connections: 4,
        progress,
      }).then(async (local) => {
        await local.introspect();
        return local;
      })),
  };
  const closeEngine = async (): Promise<void> => {
    if (engine) await (await engine).close();
  };
  const warehouses = [];
  try {
    for (const w of WAREHOUSES) warehouses.push(await w.open(config.warehouses[w.name] ?? {}, ctx));
  } catch (e) {
    await createRegistry(warehouses, closeEngine).close();
    throw e;
  }
  return createRegistry(warehouses, closeEngine);
};

/** The SQL worker pool of a process (sql-worker-pool.ts); `closeServices` stops it. */
export const sqlPoolFor = (config: Config): SqlWorkerPool =>
  createSqlWorkerPool({ threads: config.sqlWorkers });

/**
 * The query service as configured (rewrite switches, limits, timeouts, prices), on the process's SQL worker
 * pool and its per-account concurrency count (pass the ones of the services it serves beside).
 */
export const queryServiceFor = (
  config: Config,
  db: Db,
  warehouses: WarehouseRegistry,
  outbox: QueryOutbox | undefined,
  shared: {
    sqlPool: SqlWorkerPool;
    concurrency?: AccountConcurrency;
    quarantine?: QuarantineCache;
    shadow?: ShadowVerifier;
    guard?: Guardrails;
  },
): QueryService =>
  createQueryService({
    db,
    warehouses,
    defaultWarehouse: config.defaultWarehouse,
    sqlPool: shared.sqlPool,
    concurrency: shared.concurrency ?? createAccountConcurrency(config.maxConcurrentPerAccount),
    ...(shared.guard ? { guard: shared.guard } : {}),
    settings: {
      budgetMs: config.rewriteBudgetMs,
      disabled: new Set(config.rewriteDisable),
      maxQueryBytes: config.maxQueryBytes,
      maxQueryTokens: config.maxQueryTokens,
      maxListItems: config.maxListItems,
      parseTimeoutMs: config.parseTimeoutMs,
      ...(shared.quarantine ? { quarantine: shared.quarantine.snapshot } : {}),
    },
    statementTimeoutMs: config.statementTimeoutMs,
    ...(outbox ? { outbox } : {}),
    ...(shared.shadow ? { shadow: shared.shadow } : {}),
  });

/**
 * What makes this process one replica among several (README "Several replicas"): on a PostgreSQL store, the
 * key-change feed that lets it answer keys from memory; with SQLGATE_REDIS_URL, the rate limit in Redis.
 */
export const openReplica = async (
  config: Config,
): Promise<{ replica: Replica; keyChanges?: KeyChangeFeed; rateLimiter?: RateLimiter }> => {
  const name = config.replicaName ?? `${hostname()}:${process.pid}`;
  const keyChanges =
    config.databaseUrl !== undefined ? await listenKeyChanges(config.databaseUrl) : undefined;
  const redis = config.redisUrl !== undefined ? openRedis(config.redisUrl) : undefined;
  if (redis) await redisReady(redis, 2_000);
  const checks: Replica['checks'] = {
    ...(keyChanges
      ? { key_changes: { check: () => Promise.resolve(keyChanges.live), required: false } }
      : {}),
    ...(redis
      ? { redis: { check: () => pingRedis(redis), required: config.rateLimitOnStoreError === 'deny' } }
      : {}),
  };
  return {
    replica: {
      name,
      checks,
      close: async () => {
        await keyChanges?.close();
        redis?.disconnect();
      },
    },
    ...(keyChanges ? { keyChanges } : {}),
    ...(redis
      ? {
          rateLimiter: createRedisRateLimiter({
            redis,
            keyPrefix: config.redisKeyPrefix,
            limit: config.rateLimitPerMinute,
            windowSeconds: 60,
            onStoreError: config.rateLimitOnStoreError,
          }),
        }
      : {}),
  };
};

/**
 * Shadow verification (services/shadow-verifier.ts) as configured, reporting to the metrics; its checks run on
 * the same SQL worker pool and warehouses as the queries they check.
 */
export const shadowVerifierFor = (
  config: Config,
  db: Db,
  sqlPool: SqlWorkerPool,
  quarantine: QuarantineCache,
  metrics: Metrics,
  gate?: () => Promise<void>,
): ShadowVerifier => {
  const verifier: ShadowVerifier = createShadowVerifier({
    db,
    sqlPool,
    settings: {
      budgetMs: config.rewriteBudgetMs,
      disabled: new Set(config.rewriteDisable),
      maxQueryBytes: config.maxQueryBytes,
      maxQueryTokens: config.maxQueryTokens,
      maxListItems: config.maxListItems,
      parseTimeoutMs: config.parseTimeoutMs,
    },
    statementTimeoutMs: config.statementTimeoutMs,
    sample: config.shadowSample,
    queue: config.shadowQueue,
    concurrency: config.shadowConcurrency,
    maxRows: config.shadowMaxRows,
    shutdownGraceMs: config.shadowShutdownGraceMs,
    events: (outcome, rules) => {
      metrics.shadowChecks.labels(outcome).inc();
      if (outcome === 'mismatch') for (const r of rules) metrics.quarantines.labels(r).inc();
    },
    onQuarantine: () => quarantine.refresh(),
    ...(gate ? { gate } : {}),
  });
  metrics.shadowPending = () => verifier.pending;
  return verifier;
};

/** The composition root's wiring, shared by `sqlgate serve` and the tests. */
export const createServices = async (
  config: Config,
  opts: {
    progress: (m: string) => void;
    metrics?: boolean;
    /**
     * Test seams, never reachable from configuration: a SQL worker pool of the test's own (one whose worker
     * carries a deliberately broken rule), and a gate each shadow check awaits before it starts.
     */
    testing?: { sqlPool?: SqlWorkerPool; shadowGate?: () => Promise<void> };
  },
): Promise<Services> => {
  const known = new Set(RULES.map((r) => r.name));
  const unknown = config.rewriteDisable.filter((r) => !known.has(r));
  if (unknown.length > 0) {
    throw new ConfigError(
      'SQLGATE_REWRITE_DISABLE',
      `unknown rule ${unknown.join(', ')}; rules: ${[...known].join(', ')}`,
    );
  }
  // Webhook delivery gives way to requests being served (jobs/foreground.ts): to a request for its first
  // 2 × SQLGATE_WEBHOOK_YIELD_MS, for SQLGATE_WEBHOOK_YIELD_MS at most at a time; it slows under load, never stops.
  const foreground = config.webhookYieldMs > 0 ? createForegroundGauge(2 * config.webhookYieldMs) : undefined;
  const { db, dispatcher: webhookDispatcher } = await openDispatchingStore(
    config,
    (e) => {
      // Never the payload or secrets: the error's name and message only.
      if (config.logLevel !== 'silent') process.stderr.write(`webhook dispatcher: ${describeError(e)}\n`);
    },
    foreground,
  );
  const registry = await openWarehouses(config, opts.progress);
  const replica = await openReplica(config);
  const keys = createApiKeyService(db, undefined, replica.keyChanges);
  const webhooks = createWebhookService({
    db,
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    notify: () => webhookDispatcher.wake(),
  });
  const sqlPool = opts.testing?.sqlPool ?? sqlPoolFor(config);
  const metrics = createMetrics(opts.metrics ?? true);
  // Series carry the replica where several serve one port (SQLGATE_WORKERS) or one was named; a single process
  // scraped at its own address keeps its series as they were.
  if (config.workers > 1 || config.replicaName !== undefined)
    metrics.registry.setDefaultLabels({ replica: replica.replica.name });
  const clusterMetrics = clusterMetricsOf(metrics.registry);
  const quarantine = await openQuarantineCache(db, config.quarantineRefreshMs);
  const shadow = shadowVerifierFor(config, db, sqlPool, quarantine, metrics, opts.testing?.shadowGate);
  const guardrails = createGuardrails({
    db,
    notify: () => webhookDispatcher.wake(),
    ...(replica.keyChanges ? { changes: replica.keyChanges } : {}),
  });
  const queries = queryServiceFor(config, db, registry, webhooks.queryOutbox, {
    sqlPool,
    quarantine,
    shadow,
    guard: guardrails,
  });
  return {
    db,
    warehouses: registry,
    keys,
    queries,
    verify: createVerifyService({ maxBodyBytes: config.maxBodyBytes }),
    metrics,
    replica: clusterMetrics ? { ...replica.replica, clusterMetrics } : replica.replica,
    ...(replica.rateLimiter ? { rateLimiter: replica.rateLimiter } : {}),
    shadow,
    quarantine,
    dashboardAuth: createDashboardAuthService(db, config.sessionTtlMinutes * 60_000, {
      signUpLimit: { max: config.signUpLimitPerHour, windowMs: 3_600_000 },
    }),
    webhooks,
    webhookDispatcher,
    sqlPool,
    guardrails,
    ...(foreground ? { foreground } : {}),
  };
};

export const closeServices = async (s: Services): Promise<void> => {
  // Before the pool, warehouses and store its checks use: finished within the grace, or dropped and counted.
  await s.shadow?.close().catch(() => undefined);
  s.quarantine?.close();
  await s.webhookDispatcher.stop();
  await s.replica?.close();
  await s.sqlPool.close();
  await s.warehouses.close();
  await s.db.close();
};
