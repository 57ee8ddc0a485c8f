import type { Db } from '../store/db.ts';
import type { WarehouseRegistry } from '../warehouses/registry.ts';
import type { ApiKeyService } from '../services/api-keys.ts';
import type { DashboardAuthService } from '../services/dashboard-auth.ts';
import type { QueryService } from '../services/run-query.ts';
import type { VerifyService } from '../services/verify-results.ts';
import type { WebhookService } from '../services/webhooks.ts';
import type { Dispatcher } from '../jobs/dispatcher.ts';
import type { Metrics } from './metrics.ts';
import type { ForegroundGauge } from '../jobs/foreground.ts';
import type { SqlWorkerPool } from '../services/sql-worker-pool.ts';
import type { Guardrails } from '../services/guardrails.ts';
import type { RateLimiter } from '../services/rate-limiter.ts';

/** One gateway process among the replicas sharing a store: its name and its shared dependencies. */
export type Replica = {
  /** The `replica` label on /metrics, and in /readyz. */
  readonly name: string;
  /**
   * Checks of the shared dependencies beyond the store (Redis, the key-change feed), for GET /readyz. One that
   * is not `required` is reported but leaves the replica ready (it serves without it, degraded).
   */
  readonly checks: Readonly<Record<string, { check: () => Promise<boolean>; required: boolean }>>;
  /** Under SQLGATE_WORKERS > 1: every worker's figures, each series labelled by its replica (/metrics). */
  readonly clusterMetrics?: () => Promise<{ text: string; contentType: string }>;
  close(): Promise<void>;
};
import type { QuarantineCache } from '../services/rule-quarantine.ts';
import type { ShadowVerifier } from '../services/shadow-verifier.ts';

/** Everything the HTTP edge calls; built once by the composition root (src/main.ts) or a test. */
export type Services = {
  readonly db: Db;
  readonly warehouses: WarehouseRegistry;
  readonly keys: ApiKeyService;
  readonly queries: QueryService;
  readonly verify: VerifyService;
  readonly metrics: Metrics;
  readonly dashboardAuth: DashboardAuthService;
  readonly webhooks: WebhookService;
  /** Delivers the webhook outbox; `sqlgate serve` starts it (tests may too), closeServices stops it. */
  readonly webhookDispatcher: Dispatcher;
  /** Threads that parse, check, rewrite and price queries; closeServices stops them. */
  readonly sqlPool: SqlWorkerPool;
  /** Per-query limits, budgets and usage (issue 19). */
  readonly guardrails: Guardrails;
  /** Counts requests being served, for background work to give way to (jobs/foreground.ts). */
  readonly foreground?: ForegroundGauge;
  /** Per-key rate limit (in Redis when SQLGATE_REDIS_URL is set); absent: in process memory. */
  readonly rateLimiter?: RateLimiter;
  /** Scale-out: this replica's name and shared dependencies; closeServices closes them. */
  readonly replica?: Replica;
  /** Shadow verification of sampled rewritten queries; closeServices drains it. */
  readonly shadow?: ShadowVerifier;
  /** This process's copy of the rule quarantine, re-read from the store; closeServices stops it. */
  readonly quarantine?: QuarantineCache;
};
