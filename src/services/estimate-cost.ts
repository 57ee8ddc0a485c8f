import type { Catalog } from '../core/catalog.ts';
import { roundUsd } from '../core/cost/model.ts';
import type { CostEstimate, CostMethod } from '../core/cost/model.ts';
import type { Statement } from '../core/sql/tree.ts';
import type { Warehouse } from '../warehouses/registry.ts';

export type CostReport = {
  original_cost: number;
  optimized_cost: number;
  savings: number;
  currency: 'USD';
  warehouse: string;
  method: CostMethod;
  bytes_processed?: { original: number; optimized: number };
  assumptions: Readonly<Record<string, number | string | boolean>>;
};

/** Prices the original and the rewritten statement with the warehouse's model; nothing runs. */
export const priceStatements = (
  warehouse: Warehouse,
  catalog: Catalog,
  original: Statement,
  optimized: Statement,
): CostReport => {
  const a: CostEstimate = warehouse.costModel.estimate(original, catalog);
  const b: CostEstimate = original === optimized ? a : warehouse.costModel.estimate(optimized, catalog);
  const report: CostReport = {
    original_cost: a.usd,
    optimized_cost: b.usd,
    savings: roundUsd(a.usd - b.usd),
    currency: 'USD',
    warehouse: warehouse.name,
    method: a.method,
    assumptions: { ...a.assumptions, ...prefixed('optimized_', b.assumptions) },
  };
  if (a.bytes !== undefined && b.bytes !== undefined)
    report.bytes_processed = { original: a.bytes, optimized: b.bytes };
  return report;
};

const prefixed = (p: string, o: Readonly<Record<string, number | string | boolean>>) =>
  Object.fromEntries(
    Object.entries(o)
      .filter(([k]) => /bytes_billed|io_requests|rows_scanned/.test(k))
      .map(([k, v]) => [p + k, v]),
  );
