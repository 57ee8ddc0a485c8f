import { costModelOf } from '../core/cost/models/index.ts';
import type { CostModelSpec } from '../core/cost/models/index.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import type { Setting } from '../setting.ts';
import type { WarehouseAdapter } from './adapter.ts';
import { modelCost } from './cost-port.ts';
import type { Warehouse } from './registry.ts';

/** What opening a warehouse may use besides its own settings. */
export type OpenContext = {
  /** SQLGATE_STATEMENT_TIMEOUT_MS: the ceiling of every statement. */
  readonly statementTimeoutMs: number;
  /** SQLGATE_CATALOG_TTL_MS: how long introspected table metadata is kept. */
  readonly catalogTtlMs: number;
  /** The embedded DuckDB engine, opened on the first call and shared by every warehouse in local mode. */
  readonly localEngine: () => Promise<WarehouseAdapter>;
};

type SettingsOf<S> = { readonly [K in keyof S]: Setting<S[K]> };

/** A warehouse as its file declares it; `defineWarehouse` turns it into a registry entry. */
export type WarehouseSpec<N extends string, S> = {
  /** The name the API, the CLI and `SQLGATE_DEFAULT_WAREHOUSE` use. */
  readonly name: N;
  /** Dialects its queries may be written in; the first is the default (`sqlgate rewrite --dialect`). */
  readonly dialects: readonly [SqlDialect, ...SqlDialect[]];
  /** Every variable it reads, by the key its `open` sees; config.ts reads and validates them at start. */
  readonly settings: SettingsOf<S>;
  /** Connected when its settings say so (credentials), else local on the embedded engine. */
  readonly open: (values: S, ctx: OpenContext) => Promise<Warehouse>;
};

/** A registered warehouse, its settings' types erased (config.ts and the runtime treat all alike). */
export type WarehouseDefinition<N extends string = string> = {
  readonly name: N;
  readonly dialects: readonly [SqlDialect, ...SqlDialect[]];
  readonly settings: Readonly<Record<string, Setting<unknown>>>;
  readonly open: (values: Readonly<Record<string, unknown>>, ctx: OpenContext) => Promise<Warehouse>;
};

/**
 * The single definition of a warehouse: name, dialects, the settings it reads (with parsers, defaults and help),
 * and how it opens: its adapter (connected, or local mode on the embedded engine), its cost model and cost
 * port, and the pricing assumptions GET /warehouses shows. Adding a warehouse is one file exporting this plus
 * one line in `index.ts` (see README.md).
 *
 * @example
 * export const exampleWarehouse = defineWarehouse({
 *   name: 'example', dialects: ['postgres'],
 *   settings: { usdPerHour: setting('SQLGATE_EXAMPLE_USD_PER_HOUR', '1', 'price per hour', nonNegative(1)) },
 *   open: async ({ usdPerHour }, ctx) => localWarehouse(ctx, 'example', 'postgres', spec(usdPerHour), {}),
 * });
 */
export const defineWarehouse = <N extends string, S>(spec: WarehouseSpec<N, S>): WarehouseDefinition<N> => ({
  name: spec.name,
  dialects: spec.dialects,
  settings: spec.settings,
  // config.ts fills `values` from exactly these settings' parsers, so each key has its declared type.
  open: (values, ctx) => spec.open(values as S, ctx),
});

/** A warehouse in local mode: its dialect translated to the embedded engine, priced by a static model. */
export const localWarehouse = async (
  ctx: OpenContext,
  name: string,
  dialect: SqlDialect,
  costSpec: CostModelSpec,
  pricing: Warehouse['pricing'],
): Promise<Warehouse> => {
  const costModel = costModelOf(costSpec);
  // Loaded when a warehouse opens, not when config.ts reads the definitions (it pulls in the SQL library).
  const { localMode } = await import('./local-mode.ts');
  return {
    name,
    mode: 'local',
    dialect,
    adapter: localMode(await ctx.localEngine(), dialect, name),
    costModel,
    costSpec,
    cost: modelCost(costModel),
    pricing,
  };
};
