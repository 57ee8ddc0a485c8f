import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';

/** One (method, route, status) series of the request-duration histogram. */
export type DurationSeries = { observe(seconds: number): void };

/** The request-duration histogram: a series is looked up once per (method, route, status) and kept. */
export type RequestDurations = { series(method: string, route: string, status: string): DurationSeries };

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

/**
 * `sqlgate_http_request_duration_seconds`, observed on every request. prom-client's Histogram hashes a series'
 * label object on every observation (about a microsecond of the hot path); here a series is an array of
 * counts found once, and the registry reads it in prom-client's own shape (`get()`: `_bucket` with `le`,
 * `_sum`, `_count`; summed across workers), so the exposition is the same text.
 */
const createRequestDurations = (registry: Registry): RequestDurations => {
  type Series = {
    labels: { method: string; route: string; status: string };
    counts: Float64Array;
    sum: number;
    count: number;
  };
  const all = new Map<string, Series>();
  const name = 'sqlgate_http_request_duration_seconds';
  const metric = {
    name,
    help: 'HTTP request duration',
    type: 'histogram',
    aggregator: 'sum',
    get: () => {
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const s of all.values()) {
        let acc = 0;
        DURATION_BUCKETS.forEach((le, i) => {
          acc += s.counts[i]!;
          values.push({ labels: { le, ...s.labels }, value: acc, metricName: `${name}_bucket` });
        });
        values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${name}_bucket` });
        values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${name}_sum` });
        values.push({ labels: { ...s.labels }, value: s.count, metricName: `${name}_count` });
      }
      return Promise.resolve({ name, help: metric.help, type: 'histogram', values, aggregator: 'sum' });
    },
    // Series are kept (the routes hold them): a reset zeroes them.
    reset: () => {
      for (const s of all.values()) {
        s.counts.fill(0);
        s.sum = 0;
        s.count = 0;
      }
    },
  };
  registry.registerMetric(metric as unknown as Metric);
  return {
    series: (method, route, status) => {
      const key = `${method} ${status} ${route}`;
      let s = all.get(key);
      if (s === undefined) {
        s = {
          labels: { method, route, status },
          counts: new Float64Array(DURATION_BUCKETS.length),
          sum: 0,
          count: 0,
        };
        all.set(key, s);
      }
      const series = s;
      return {
        observe: (seconds: number): void => {
          if (!Number.isFinite(seconds)) return;
          let i = 0;
          while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
          if (i < DURATION_BUCKETS.length) series.counts[i] = series.counts[i]! + 1;
          series.sum += seconds;
          series.count++;
        },
      };
    },
  };
};

export type Metrics = {
  readonly registry: Registry;
  readonly httpDuration: RequestDurations;
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
  // The event-loop lag is sampled every 100 ms rather than prom-client's 10: its timer otherwise wakes an idle
  // process 100 times a second (about half of an idle replica's CPU); each sample still measures the lag exactly.
  if (withDefaults)
    collectDefaultMetrics({ register: registry, prefix: 'sqlgate_', eventLoopMonitoringPrecision: 100 });
  const metrics: Metrics = {
    shadowPending: () => 0,
    registry,
    httpDuration: createRequestDurations(registry),
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
