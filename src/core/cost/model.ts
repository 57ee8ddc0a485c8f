import type { Catalog } from '../catalog.ts';
import type { Statement } from '../sql/tree.ts';

export type CostMethod = 'dry_run' | 'explain' | 'model' | 'heuristic';

export type CostAccuracy = 'exact' | 'lower_bound' | 'estimate';

export type CostEstimate = {
  readonly usd: number;
  readonly method: CostMethod;
  /** Bytes the warehouse would process, where the model knows them. */
  readonly bytes?: number;
  /** Bytes the warehouse would bill (minimums and rounding applied), where it bills by bytes. */
  readonly bytesBilled?: number;
  /**
   * How far the figure can be trusted: `exact` (the warehouse's own figure, priced by its rules),
   * `lower_bound` (the warehouse's figure, but a billing rule could only be bounded), `estimate` (a model).
   */
  readonly accuracy?: CostAccuracy;
  /** Prices and sizes the estimate used, shown to the user. */
  readonly assumptions: Readonly<Record<string, number | string | boolean>>;
};

/**
 * A pure cost model: prices one parsed statement from the catalog's sizes, without running anything.
 *
 * @example bigQueryByteModel({ usdPerTib: 6.25 }).estimate(stmt, catalog) // { usd: 0.00006, bytes: 10485760, … }
 */
export type CostModel = {
  readonly name: string;
  estimate(stmt: Statement, catalog: Catalog): CostEstimate;
};

/** Money is shown to the micro-dollar; never NaN, never negative. */
export const roundUsd = (usd: number): number =>
  Number.isFinite(usd) && usd > 0 ? Math.round(usd * 1e9) / 1e9 : 0;
