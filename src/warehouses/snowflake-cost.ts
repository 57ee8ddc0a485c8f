import type { CostEstimate } from '../core/cost/model.ts';

/** Warehouse sizes and their credits per hour (Snowflake standard warehouses: each size doubles). */
export const WAREHOUSE_SIZES = {
  'X-SMALL': 1,
  SMALL: 2,
  MEDIUM: 4,
  LARGE: 8,
  'X-LARGE': 16,
  '2X-LARGE': 32,
  '3X-LARGE': 64,
  '4X-LARGE': 128,
  '5X-LARGE': 256,
  '6X-LARGE': 512,
} as const;

export type WarehouseSize = keyof typeof WAREHOUSE_SIZES;

/** Short names accepted for a size: XS, S, M, L, XL, 2XL … 6XL, and Snowflake's XSMALL, XLARGE, X2LARGE … */
const ALIASES: Readonly<Record<string, WarehouseSize>> = {
  XS: 'X-SMALL',
  XSMALL: 'X-SMALL',
  S: 'SMALL',
  M: 'MEDIUM',
  L: 'LARGE',
  XL: 'X-LARGE',
  XLARGE: 'X-LARGE',
  '2XL': '2X-LARGE',
  XXLARGE: '2X-LARGE',
  X2LARGE: '2X-LARGE',
  '2XLARGE': '2X-LARGE',
  '3XL': '3X-LARGE',
  XXXLARGE: '3X-LARGE',
  X3LARGE: '3X-LARGE',
  '3XLARGE': '3X-LARGE',
  '4XL': '4X-LARGE',
  X4LARGE: '4X-LARGE',
  '4XLARGE': '4X-LARGE',
  '5XL': '5X-LARGE',
  X5LARGE: '5X-LARGE',
  '5XLARGE': '5X-LARGE',
  '6XL': '6X-LARGE',
  X6LARGE: '6X-LARGE',
  '6XLARGE': '6X-LARGE',
};

/** A size as written (any case, with or without the hyphen, or short), or undefined. */
export const warehouseSizeOf = (raw: string): WarehouseSize | undefined => {
  const t = raw.trim().toUpperCase().replace(/_/g, '-');
  if (t in WAREHOUSE_SIZES) return t as WarehouseSize;
  return ALIASES[t.replace(/-/g, '')] ?? ALIASES[t];
};

/** What `EXPLAIN USING JSON` says about a statement (compile only: no warehouse runs). */
export type SnowflakePlan = {
  readonly partitionsTotal: number;
  readonly partitionsAssigned: number;
  readonly bytesAssigned: number;
  readonly scans: ReadonlyArray<{
    readonly table: string;
    readonly partitionsTotal: number;
    readonly partitionsAssigned: number;
    readonly bytesAssigned: number;
  }>;
};

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v ?? 0) || 0);

/** Reads the JSON of `EXPLAIN USING JSON` (its one row's `content`). */
export const parseExplainJson = (content: string): SnowflakePlan => {
  const json = JSON.parse(content) as {
    GlobalStats?: Record<string, unknown>;
    Operations?: ReadonlyArray<ReadonlyArray<Record<string, unknown>>>;
  };
  const g = json.GlobalStats ?? {};
  const scans = (json.Operations ?? [])
    .flat()
    .filter((op) => op.operation === 'TableScan')
    .map((op) => ({
      table: Array.isArray(op.objects) && typeof op.objects[0] === 'string' ? op.objects[0] : '',
      partitionsTotal: num(op.partitionsTotal),
      partitionsAssigned: num(op.partitionsAssigned),
      bytesAssigned: num(op.bytesAssigned),
    }));
  return {
    partitionsTotal: num(g.partitionsTotal),
    partitionsAssigned: num(g.partitionsAssigned),
    bytesAssigned: num(g.bytesAssigned),
    scans,
  };
};

export type SnowflakePricing = {
  readonly size: WarehouseSize;
  readonly usdPerCredit: number;
  /** MiB an X-Small warehouse scans per second; a size twice as large scans twice as fast. */
  readonly scanMibPerSecond: number;
};

const MIB = 1024 * 1024;
/** Snowflake bills at least 60 seconds each time a warehouse resumes. */
export const RESUME_MINIMUM_SECONDS = 60;

/**
 * Prices a plan (`method: "explain"`): the bytes EXPLAIN assigns to the scans, read at the configured size's
 * scan rate, give the seconds; billed per second (rounded up), at the size's credits per hour, at the price
 * per credit. The 60-second minimum on resume is named in the assumptions, not charged: a warehouse that is
 * already running does not pay it again.
 *
 * @example priceSnowflakePlan({ bytesAssigned: 1024 ** 3, … }, { size: 'X-SMALL', usdPerCredit: 3, scanMibPerSecond: 100 })
 *   // 1 GiB at 100 MiB/s: 11 s billed, 11/3600 credit, $0.009167
 */
export const priceSnowflakePlan = (
  plan: SnowflakePlan,
  p: SnowflakePricing,
): { usd: number; bytes: number; assumptions: CostEstimate['assumptions'] } => {
  const creditsPerHour = WAREHOUSE_SIZES[p.size];
  const bytesPerSecond = p.scanMibPerSecond * MIB * creditsPerHour;
  const seconds = bytesPerSecond > 0 ? plan.bytesAssigned / bytesPerSecond : 0;
  const billedSeconds = Math.ceil(seconds);
  const credits = (billedSeconds * creditsPerHour) / 3600;
  return {
    usd: credits * p.usdPerCredit,
    bytes: plan.bytesAssigned,
    assumptions: {
      warehouse_size: p.size,
      credits_per_hour: creditsPerHour,
      usd_per_credit: p.usdPerCredit,
      scan_mib_per_second: p.scanMibPerSecond * creditsPerHour,
      bytes_assigned: plan.bytesAssigned,
      partitions_assigned: plan.partitionsAssigned,
      partitions_total: plan.partitionsTotal,
      estimated_seconds: Number(seconds.toFixed(3)),
      billed_seconds: billedSeconds,
      credits: Number(credits.toFixed(9)),
      billing: 'per second, rounded up',
      minimum_seconds_on_resume: RESUME_MINIMUM_SECONDS,
      resume_minimum:
        'Snowflake bills at least 60 seconds each time the warehouse resumes; not included (a running warehouse does not pay it)',
    },
  };
};
