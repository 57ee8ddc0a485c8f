import { roundUsd } from '../core/cost/model.ts';
import type { CostEstimate, CostMethod } from '../core/cost/model.ts';
import type { CostInput } from '../warehouses/cost-port.ts';
import type { Warehouse } from '../warehouses/registry.ts';
import type { PreparedQuery } from './prepare-query.ts';

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

export type PricedQuery = {
  readonly report: CostReport;
  /** Why the warehouse refused the rewritten form (the original must run instead), when it did. */
  readonly optimizedRefused?: string;
};

const report = (warehouse: Warehouse, a: CostEstimate, b: CostEstimate): CostReport => {
  const r: CostReport = {
    original_cost: a.usd,
    optimized_cost: b.usd,
    savings: roundUsd(a.usd - b.usd),
    currency: 'USD',
    warehouse: warehouse.name,
    method: a.method,
    assumptions: { ...a.assumptions, ...prefixed('optimized_', b.assumptions) },
  };
  if (a.bytes !== undefined && b.bytes !== undefined)
    r.bytes_processed = { original: a.bytes, optimized: b.bytes };
  return r;
};

const prefixed = (p: string, o: Readonly<Record<string, number | string | boolean>>) =>
  Object.fromEntries(
    Object.entries(o)
      .filter(([k]) => /bytes_billed|io_requests|rows_scanned|acu_seconds/.test(k))
      .map(([k, v]) => [p + k, v]),
  );

/**
 * Prices a prepared query's original and rewritten forms through the warehouse's cost port (its static model,
 * its plan or its dry run), reusing the estimates the rewrite engine made. With `fallback`, the original
 * is what runs, so both sides are the original. Nothing is executed.
 */
export const priceQuery = async (
  warehouse: Warehouse,
  p: PreparedQuery,
  fallback: boolean,
): Promise<PricedQuery> => {
  const original: CostInput = {
    sql: p.sql,
    ...(p.original ? { statement: p.original } : {}),
    ...(p.rewrite?.costs ? { known: p.rewrite.costs.original } : {}),
  };
  const optimized: CostInput =
    fallback || p.rewrite === undefined
      ? original
      : {
          sql: p.rewrittenSql,
          statement: p.rewrite.statement,
          ...(p.rewrite.costs ? { known: p.rewrite.costs.result } : {}),
        };
  const pair = await warehouse.cost.price(original, optimized, p.catalog);
  return {
    report: report(warehouse, pair.original, pair.optimized),
    ...(pair.optimizedRefused !== undefined ? { optimizedRefused: pair.optimizedRefused } : {}),
  };
};
