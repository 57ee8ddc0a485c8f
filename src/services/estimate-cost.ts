import { roundUsd } from '../core/cost/model.ts';
import type { CostAccuracy, CostEstimate, CostMethod } from '../core/cost/model.ts';
import type { Warehouse } from '../warehouses/registry.ts';

export type CostReport = {
  original_cost: number;
  optimized_cost: number;
  savings: number;
  currency: 'USD';
  warehouse: string;
  method: CostMethod;
  /** `exact`, `lower_bound` or `estimate` (the weaker of the two forms'). */
  accuracy?: CostAccuracy;
  bytes_processed?: { original: number; optimized: number };
  assumptions: Readonly<Record<string, number | string | boolean>>;
};

const ORDER: readonly CostAccuracy[] = ['estimate', 'lower_bound', 'exact'];

const weaker = (a: CostAccuracy | undefined, b: CostAccuracy | undefined): CostAccuracy | undefined =>
  a === undefined || b === undefined ? undefined : ORDER[Math.min(ORDER.indexOf(a), ORDER.indexOf(b))];

const PREFIXED = /bytes_billed|io_requests|rows_scanned|acu_seconds/;
/** The assumptions of `o` that differ between the two forms, under names with the prefix `p`. */
const prefixed = (
  p: string,
  o: Readonly<Record<string, number | string | boolean>>,
): Record<string, number | string | boolean> => {
  const out: Record<string, number | string | boolean> = {};
  for (const k of Object.keys(o)) if (PREFIXED.test(k)) out[p + k] = o[k]!;
  return out;
};

/** The report of GET /cost (and of POST /query's `cost`) from the estimates of the original and the form that runs. */
export const costReport = (warehouse: Warehouse, a: CostEstimate, b: CostEstimate): CostReport => {
  const accuracy = weaker(a.accuracy, b.accuracy);
  const r: CostReport = {
    original_cost: a.usd,
    optimized_cost: b.usd,
    savings: roundUsd(a.usd - b.usd),
    currency: 'USD',
    warehouse: warehouse.name,
    method: a.method,
    ...(accuracy !== undefined ? { accuracy } : {}),
    assumptions: { ...a.assumptions, ...prefixed('optimized_', b.assumptions) },
  };
  if (a.bytes !== undefined && b.bytes !== undefined)
    r.bytes_processed = { original: a.bytes, optimized: b.bytes };
  return r;
};
