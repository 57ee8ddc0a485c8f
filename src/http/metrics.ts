import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type Metrics = {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly queries: Counter<'warehouse' | 'status' | 'fallback'>;
  readonly savingsUsd: Counter<'warehouse'>;
  readonly rulesApplied: Counter<'rule'>;
  /** Shadow verification: checks by outcome (match, mismatch, inconclusive, error, dropped). */
  readonly shadowChecks: Counter<'outcome'>;
  readonly shadowQueued: Gauge;
  /** Where `shadowQueued` reads its value when scraped (the shadow verifier's pending count). */
  shadowPending: () => number;
  /** Rules quarantined for a query shape after a mismatch. */
  readonly quarantines: Counter<'rule'>;
};

/** One registry per app, so that tests building several apps do not collide. */
export const createMetrics = (withDefaults = true): Metrics => {
  const registry = new Registry();
  if (withDefaults) collectDefaultMetrics({ register: registry, prefix: 'sqlgate_' });
  const metrics: Metrics = {
    shadowPending: () => 0,
    registry,
    httpDuration: new Histogram({
      name: 'sqlgate_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    queries: new Counter({
      name: 'sqlgate_queries_total',
      help: 'Queries run through POST /query',
      labelNames: ['warehouse', 'status', 'fallback'],
      registers: [registry],
    }),
    savingsUsd: new Counter({
      name: 'sqlgate_savings_usd_total',
      help: 'Estimated USD saved by rewriting',
      labelNames: ['warehouse'],
      registers: [registry],
    }),
    rulesApplied: new Counter({
      name: 'sqlgate_rewrite_rules_applied_total',
      help: 'Rewrite rules that changed a query',
      labelNames: ['rule'],
      registers: [registry],
    }),
    shadowChecks: new Counter({
      name: 'sqlgate_shadow_checks_total',
      help: 'Shadow verification checks (the original query run again and compared), by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    shadowQueued: new Gauge({
      name: 'sqlgate_shadow_checks_pending',
      help: 'Shadow verification checks waiting for their response to go, queued or running',
      registers: [registry],
      collect() {
        this.set(metrics.shadowPending());
      },
    }),
    quarantines: new Counter({
      name: 'sqlgate_rule_quarantines_total',
      help: 'Rewrite rules quarantined for a query shape after a shadow verification mismatch',
      labelNames: ['rule'],
      registers: [registry],
    }),
  };
  return metrics;
};
