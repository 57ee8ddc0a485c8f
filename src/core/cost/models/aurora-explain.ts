/** What the model needs from a plan (structurally the warehouse port's ExplainResult). */
export type PlanEstimate = {
  readonly rowsScanned: number;
  readonly rowsReturned: number;
  /** Pages (8 KiB PostgreSQL / 16 KiB InnoDB) the plan reads. */
  readonly pages: number;
};

export type AuroraPrices = {
  /** Aurora Standard: USD per million I/O requests (0.20 in us-east-1). */
  readonly usdPerMillionIoRequests: number;
  /** Aurora Serverless v2: USD per ACU-hour (0.12 in us-east-1). */
  readonly usdPerAcuHour: number;
  /** Rows one ACU processes per second (scan, filter, join, return): the CPU-time assumption. */
  readonly rowsPerAcuSecond: number;
  /** Share of pages found in the buffer cache, which Aurora does not bill as I/O. 0 = cold cache, the upper bound. */
  readonly cacheHitRatio: number;
};

export const DEFAULT_AURORA_PRICES: AuroraPrices = {
  usdPerMillionIoRequests: 0.2,
  usdPerAcuHour: 0.12,
  rowsPerAcuSecond: 1_000_000,
  cacheHitRatio: 0,
};

export type AuroraCost = {
  readonly usd: number;
  readonly assumptions: Readonly<Record<string, number | string>>;
};

const finite = (n: number): number => (Number.isFinite(n) && n > 0 ? n : 0);

/**
 * Aurora cost of one statement from its EXPLAIN estimate: each page read from storage is one billed I/O
 * request, and the rows it touches take a share of instance time (ACU-seconds at the assumed throughput).
 * Pure: prices come in, USD and the assumptions used go out; a bad estimate (NaN, negative) counts as 0.
 *
 * @example auroraExplainCost({ rowsScanned: 1e6, rowsReturned: 10, pages: 10_000 }, DEFAULT_AURORA_PRICES).usd
 * // I/O 10_000 × 0.20/1e6 = 0.002, CPU 1.00001 ACU-s × 0.12/3600 ≈ 0.0000333 → ≈ 0.0020333
 */
export const auroraExplainCost = (
  plan: PlanEstimate,
  prices: AuroraPrices = DEFAULT_AURORA_PRICES,
): AuroraCost => {
  const hit = Math.min(1, Math.max(0, finite(prices.cacheHitRatio)));
  const ioRequests = Math.ceil(finite(plan.pages) * (1 - hit));
  const rows = finite(plan.rowsScanned) + finite(plan.rowsReturned);
  const acuSeconds = prices.rowsPerAcuSecond > 0 ? rows / prices.rowsPerAcuSecond : 0;
  const ioUsd = (ioRequests / 1_000_000) * finite(prices.usdPerMillionIoRequests);
  const computeUsd = (acuSeconds / 3600) * finite(prices.usdPerAcuHour);
  return {
    usd: ioUsd + computeUsd,
    assumptions: {
      pricing: 'aurora-standard-io+acu-time',
      usd_per_million_io_requests: prices.usdPerMillionIoRequests,
      usd_per_acu_hour: prices.usdPerAcuHour,
      rows_per_acu_second: prices.rowsPerAcuSecond,
      cache_hit_ratio: hit,
      io_requests: ioRequests,
      acu_seconds: acuSeconds,
      io_usd: ioUsd,
      compute_usd: computeUsd,
    },
  };
};
