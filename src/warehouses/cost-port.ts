import type { Catalog } from '../core/catalog.ts';
import { roundUsd } from '../core/cost/model.ts';
import type { CostEstimate, CostModel } from '../core/cost/model.ts';
import type { Statement } from '../core/sql/tree.ts';

/**
 * One form of a query to price: its text in the warehouse's dialect, its tree when the caller has it (the query
 * service does not: the SQL worker pool parses), and the estimate the rewrite engine already made of it with the
 * warehouse's static model (so it is not priced twice). Neither tree nor estimate: a text too deep to parse.
 */
export type CostInput = {
  readonly sql: string;
  readonly statement?: Statement;
  readonly known?: CostEstimate;
};

export type CostPair = {
  readonly original: CostEstimate;
  readonly optimized: CostEstimate;
  /** Why the warehouse refused the optimized form though it accepted the original: the original runs then. */
  readonly optimizedRefused?: string;
};

/**
 * The cost port: prices a query's original and optimized forms together, so a warehouse that is asked (a
 * plan, a dry run) is asked for both at once: one round trip of latency. Static models, EXPLAIN plans and
 * dry runs are all cost models behind it; callers never branch on which. When nothing was rewritten the same
 * input is passed twice and priced once.
 *
 * @example const { original, optimized } = await costPort.price(input, input, catalog); // original === optimized
 */
export type CostPort = {
  /** Shown by GET /warehouses as `cost_method`, e.g. `bigquery-bytes`, `aurora-explain`, `bigquery-dry-run`. */
  readonly name: string;
  /**
   * True when the price depends only on the inputs and the catalog (a static model: no warehouse is asked),
   * so a report may be remembered while the catalog stays the same (GET /cost of a repeated text).
   */
  readonly pure?: boolean;
  price(original: CostInput, optimized: CostInput, catalog: Catalog): Promise<CostPair>;
};

/** A query the parser could not build a tree for (too deeply nested) runs as written, unpriced. */
const unparsed = (): CostEstimate => ({
  usd: 0,
  method: 'heuristic',
  assumptions: { reason: 'the query is too deeply nested to analyse; it runs as written' },
});

/** Prices with a pure model over the catalog, reusing the engine's estimates. */
const fromModel = (model: CostModel, input: CostInput, catalog: Catalog): CostEstimate =>
  input.known ?? (input.statement ? model.estimate(input.statement, catalog) : unparsed());

/** A static model as a cost port (local mode, and the heuristics of warehouses without a plan). */
export const modelCost = (model: CostModel): CostPort => ({
  name: model.name,
  pure: true,
  price: (original, optimized, catalog) => {
    const a = fromModel(model, original, catalog);
    const b = optimized === original ? a : fromModel(model, optimized, catalog);
    return Promise.resolve({ original: a, optimized: b });
  },
});

export type PlanPricing<P> = {
  readonly name: string;
  /** Asks the warehouse for the plan of one statement (compile only, nothing runs). */
  readonly explain: (sql: string) => Promise<P>;
  /** Prices a plan: USD and the assumptions used. */
  readonly price: (plan: P) => {
    readonly usd: number;
    /** Bytes the plan reads, where it says (Snowflake's bytesAssigned). */
    readonly bytes?: number;
    readonly assumptions: CostEstimate['assumptions'];
  };
  /** The heuristic used when the plan cannot be had (it says so in `assumptions`). */
  readonly fallback: CostModel;
};

/**
 * Pricing from the warehouse's own plan (`method: "explain"`): both forms explained in parallel. When either
 * EXPLAIN fails, both forms fall back to the static model and `assumptions.explain_failed` says why.
 */
export const planCost = <P>(p: PlanPricing<P>): CostPort => ({
  name: p.name,
  price: async (original, optimized, catalog) => {
    const priced = (plan: P): CostEstimate => {
      const c = p.price(plan);
      return {
        usd: roundUsd(c.usd),
        method: 'explain',
        ...(c.bytes !== undefined ? { bytes: c.bytes, accuracy: 'estimate' as const } : {}),
        assumptions: c.assumptions,
      };
    };
    // Neither a tree nor the engine's estimate: a text too deep to parse, which runs as written, unpriced.
    if (original.statement === undefined && original.known === undefined)
      return { original: unparsed(), optimized: unparsed() };
    try {
      const same = optimized.sql === original.sql;
      const [a, b] = await Promise.all([
        p.explain(original.sql),
        same ? undefined : p.explain(optimized.sql),
      ]);
      const pa = priced(a);
      return { original: pa, optimized: b === undefined ? pa : priced(b) };
    } catch (e) {
      const note = { explain_failed: e instanceof Error ? e.message.slice(0, 200) : 'explain failed' };
      const a = fromModel(p.fallback, original, catalog);
      const b = optimized === original ? a : fromModel(p.fallback, optimized, catalog);
      return {
        original: { ...a, assumptions: { ...a.assumptions, ...note } },
        optimized: { ...b, assumptions: { ...b.assumptions, ...note } },
      };
    }
  },
});
