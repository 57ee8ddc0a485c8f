import type { CostModel } from '../core/cost/model.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import type { WarehouseAdapter } from './adapter.ts';
import type { CostPort } from './cost-port.ts';

/**
 * A warehouse as the API names it, opened: the dialect its queries are written in, the adapter that runs them
 * (connected, or local mode on the embedded engine), the static cost model the rewrite engine gates each rule
 * with, and the cost port that prices a query (the same model, or the warehouse's plan or dry run).
 */
export type Warehouse = {
  readonly name: string;
  readonly mode: 'local' | 'connected';
  readonly dialect: SqlDialect;
  readonly adapter: WarehouseAdapter;
  /** Pure and synchronous; `CostInput.known` estimates come from it, so `cost` may reuse them. */
  readonly costModel: CostModel;
  readonly cost: CostPort;
  /** Prices and sizes the cost model assumes, for GET /warehouses. */
  readonly pricing: Readonly<Record<string, number | string>>;
};

export type WarehouseRegistry = {
  get(name: string): Warehouse;
  all(): readonly Warehouse[];
  close(): Promise<void>;
};

/** The opened warehouses; `close` closes their adapters, then what they share (`alsoClose`, e.g. the engine). */
export const createRegistry = (
  warehouses: readonly Warehouse[],
  alsoClose: () => Promise<void> = () => Promise.resolve(),
): WarehouseRegistry => {
  const byName = new Map(warehouses.map((w) => [w.name, w]));
  return {
    get: (name) => {
      const w = byName.get(name);
      if (!w) throw new Error(`warehouse ${name} is not configured`);
      return w;
    },
    all: () => warehouses,
    close: async () => {
      const adapters = new Set(warehouses.map((w) => w.adapter));
      for (const a of adapters) await a.close();
      await alsoClose();
    },
  };
};
