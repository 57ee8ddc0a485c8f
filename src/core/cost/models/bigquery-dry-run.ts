import { roundUsd } from '../model.ts';
import type { CostEstimate } from '../model.ts';
import { MIB, TIB } from './bigquery-bytes.ts';

const MINIMUM_BYTES = 10 * MIB;

/** What a BigQuery dry run reports: the exact bytes the query would process and the tables it reads. */
export type DryRunFigures = {
  readonly bytesProcessed: number;
  /** Tables the query references (`statistics.query.referencedTables`). */
  readonly referencedTables: number;
};

/**
 * BigQuery on-demand price of a dry run (`method: "dry_run"`). Billing rounds up to the MiB, with a 10 MiB
 * minimum per query and per referenced table. A dry run gives the total bytes, not each table's, so with one
 * table (or none) the bill is exact, and with several it is bounded: at least max(total, 10 MiB × tables),
 * at most total + 10 MiB × (tables − 1) (every table but one under its minimum). The lower bound is priced
 * (`accuracy: "lower_bound"`), the upper one shown in `assumptions.bytes_billed_max`.
 *
 * @example bigQueryDryRunCost({ bytesProcessed: 25 * MIB + 1, referencedTables: 1 }, 6.25).bytesBilled // 26 MiB
 */
export const bigQueryDryRunCost = (run: DryRunFigures, usdPerTib: number): CostEstimate => {
  const bytes = Math.max(0, run.bytesProcessed);
  const tables = Math.max(0, Math.floor(run.referencedTables));
  const rounded = Math.ceil(bytes / MIB) * MIB;
  const billed = Math.max(MINIMUM_BYTES, rounded, MINIMUM_BYTES * tables);
  const billedMax = Math.max(billed, rounded + MINIMUM_BYTES * Math.max(0, tables - 1));
  return {
    usd: roundUsd((billed / TIB) * usdPerTib),
    method: 'dry_run',
    bytes,
    bytesBilled: billed,
    accuracy: tables <= 1 ? 'exact' : 'lower_bound',
    assumptions: {
      usd_per_tib: usdPerTib,
      bytes_billed: billed,
      bytes_billed_max: billedMax,
      referenced_tables: tables,
      minimum_bytes_per_table: MINIMUM_BYTES,
      minimum_bytes_per_query: MINIMUM_BYTES,
      rounding: 'MiB',
    },
  };
};
