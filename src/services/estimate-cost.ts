import { roundUsd } from '../core/cost/model.ts';
import type { CostEstimate, CostMethod } from '../core/cost/model.ts';
import { auroraExplainCost } from '../core/cost/models/aurora-explain.ts';
import type { AuroraPrices } from '../core/cost/models/aurora-explain.ts';
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
 * Prices from the warehouse's own plan where it has one (EXPLAIN on a connected Aurora), else the static model's
 * estimates (computed with the rewrite, in the SQL worker pool). A failing EXPLAIN falls back to those and says
 * so in `assumptions`.
 */
export const priceQuery = async (
  warehouse: Warehouse,
  original: { sql: string; estimate: CostEstimate },
  optimized: { sql: string; estimate: CostEstimate },
  prices: AuroraPrices,
): Promise<CostReport> => {
  const adapter = warehouse.adapter;
  const fromModel = (): CostReport => report(warehouse, original.estimate, optimized.estimate);
  if (warehouse.mode === 'connected' && adapter.capabilities.explain && adapter.explain) {
    try {
      const planA = await adapter.explain(original.sql);
      const planB = original.sql === optimized.sql ? planA : await adapter.explain(optimized.sql);
      const costA = auroraExplainCost(planA, prices);
      const costB = auroraExplainCost(planB, prices);
      const est = (c: typeof costA): CostEstimate => ({
        usd: roundUsd(c.usd),
        method: 'explain',
        assumptions: c.assumptions,
      });
      return report(warehouse, est(costA), est(costB));
    } catch (e) {
      const fallback = fromModel();
      return {
        ...fallback,
        assumptions: {
          ...fallback.assumptions,
          explain_failed: e instanceof Error ? e.message.slice(0, 200) : 'explain failed',
        },
      };
    }
  }
  return fromModel();
};
