import type { CostEstimate } from '../core/cost/model.ts';
import type { Statement } from '../core/sql/tree.ts';
import type { CostInput } from '../warehouses/cost-port.ts';
import type { Warehouse } from '../warehouses/registry.ts';
import { costReport } from './estimate-cost.ts';
import type { CostReport } from './estimate-cost.ts';
import { prepareQuery } from './prepare-query.ts';
import type { PreparedQuery, RewriteSettings } from './prepare-query.ts';

/** A query checked, rewritten and priced: what runs (the rewritten form, or the original), and at what cost. */
export type QueryPlan = {
  readonly prepared: PreparedQuery;
  /** The SQL that runs, in the warehouse's dialect, and its tree (absent for a text too deep to parse). */
  readonly sql: string;
  readonly statement: Statement | undefined;
  readonly rulesApplied: readonly string[];
  readonly fallback: boolean;
  /** The estimate of the form that runs. */
  readonly estimate: CostEstimate;
  readonly report: CostReport;
  /** Why the rewritten form does not run, when it was dropped after the rewrite. */
  readonly dropped?: string;
};

/**
 * Prepares the query (size, parse, read-only check, rewrite gated by the static model), then prices the
 * original and the rewritten form together through the warehouse's cost port (one round trip where the
 * warehouse is asked), reusing the engine's estimates. The rewritten form is dropped, and the original runs,
 * when the port rates it dearer (`rules_applied` empty) or the warehouse refuses it while accepting the
 * original (`fallback`). With `forRun`, the adapter's `check` must accept what runs (local mode: it
 * translates); a refused rewritten form falls back to the original. Nothing is executed.
 */
export const planQuery = async (
  w: Warehouse,
  sql: string,
  settings: RewriteSettings,
  opts: { readonly forRun: boolean },
): Promise<QueryPlan> => {
  const p = await prepareQuery(w, sql, settings);
  const original: CostInput = {
    sql,
    ...(p.original ? { statement: p.original } : {}),
    ...(p.rewrite?.costs ? { known: p.rewrite.costs.original } : {}),
  };
  const rewritten = p.rewrite && !p.fallback && p.rewrite.statement !== p.original;
  let candidate: CostInput =
    rewritten && p.rewrite
      ? {
          sql: p.rewrittenSql,
          statement: p.rewrite.statement,
          ...(p.rewrite.costs ? { known: p.rewrite.costs.result } : {}),
        }
      : original;
  let fallback = p.fallback;
  let dropped: string | undefined;
  if (opts.forRun && w.adapter.check) {
    const verdict = w.adapter.check(candidate.sql, candidate.statement);
    if (!verdict.ok) {
      if (candidate === original) throw verdict.error;
      const again = w.adapter.check(sql, p.original);
      if (!again.ok) throw again.error;
      // The rewritten form cannot run here: the original runs instead (a rewrite never fails a query).
      candidate = original;
      fallback = true;
      dropped = verdict.error.detail;
    }
  }
  const pair = await w.cost.price(original, candidate, p.catalog);
  let estimate = candidate === original ? pair.original : pair.optimized;
  if (candidate !== original && pair.optimizedRefused !== undefined) {
    candidate = original;
    fallback = true;
    dropped = pair.optimizedRefused;
    estimate = pair.original;
  } else if (candidate !== original && !(pair.optimized.usd <= pair.original.usd)) {
    // Rated dearer by the warehouse's own figures (a plan, a dry run): like the engine's gate, no rule applies.
    candidate = original;
    dropped = 'the rewritten query was rated more expensive';
    estimate = pair.original;
  }
  const runsOriginal = candidate === original;
  return {
    prepared: p,
    sql: candidate.sql,
    statement: candidate.statement,
    rulesApplied: runsOriginal ? [] : p.rulesApplied,
    fallback,
    estimate,
    report: costReport(w, pair.original, estimate),
    ...(dropped !== undefined ? { dropped } : {}),
  };
};
