import type { CostModel } from '../core/cost/model.ts';
import type { CostModelSpec } from '../core/cost/models/index.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import type { WarehouseAdapter } from './adapter.ts';

export const WAREHOUSE_NAMES = ['bigquery', 'snowflake', 'aurora'] as const;
export type WarehouseName = (typeof WAREHOUSE_NAMES)[number];
export const isWarehouseName = (s: string): s is WarehouseName =>
  (WAREHOUSE_NAMES as readonly string[]).includes(s);

/**
 * A warehouse as the API names it: the dialect its queries are written in, the adapter that runs them
 * (in local mode, the embedded DuckDB for every name) and the cost model that prices them.
 */
export type Warehouse = {
  readonly name: WarehouseName;
  readonly mode: 'local' | 'connected';
  readonly dialect: SqlDialect;
  readonly adapter: WarehouseAdapter;
  readonly costModel: CostModel;
  /** The same model as plain data, rebuilt by the SQL worker threads that rewrite and price queries. */
  readonly costSpec: CostModelSpec;
  /** Prices and sizes the cost model assumes, for GET /warehouses. */
  readonly pricing: Readonly<Record<string, number | string>>;
};

export type WarehouseRegistry = {
  get(name: WarehouseName): Warehouse;
  all(): readonly Warehouse[];
  close(): Promise<void>;
};

export const createRegistry = (warehouses: readonly Warehouse[]): WarehouseRegistry => {
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
    },
  };
};
