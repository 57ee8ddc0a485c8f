import type { CostEstimate } from '../core/cost/model.ts';
import type { CostInput } from '../warehouses/cost-port.ts';
import type { Warehouse } from '../warehouses/registry.ts';
import { costReport } from './estimate-cost.ts';
import type { CostReport } from './estimate-cost.ts';
import { prepareQuery } from './prepare-query.ts';
import type { PreparedQuery, RewriteSettings } from './prepare-query.ts';
import type { SqlWorkerPool } from './sql-worker-pool.ts';

/** A query checked, rewritten and priced: what runs (the rewritten form, or the original), and at what cost. */
export type QueryPlan = {
  readonly prepared: PreparedQuery;
  /** The SQL that runs, in the warehouse's dialect. */
  readonly sql: string;
  /** For an adapter that translates (local mode), with `forRun`: `sql` in the dialect it runs. */
  readonly translated?: string;
  readonly rulesApplied: readonly string[];
  readonly fallback: boolean;
  /** The estimate of the form that runs. */
  readonly estimate: CostEstimate;
  readonly report: CostReport;
  /** Why the rewritten form does not run, when it was dropped after the rewrite. */
  readonly dropped?: string;
};

/**
 * Prepares the query in the SQL worker pool (size, parse, read-only check, rewrite gated by the static model,
 * and with `forRun` the translation an adapter that translates needs), then prices the original and the
 * rewritten form together through the warehouse's cost port (one round trip where the warehouse is asked),
 * reusing the engine's estimates. The rewritten form is dropped, and the original runs, when the port rates it
 * dearer (`rules_applied` empty) or the warehouse refuses it while accepting the original (`fallback`). An
 * adapter that checks without translating has its `check` asked here. Nothing is executed.
 */
export const planQuery = async (
  w: Warehouse,
  sql: string,
  settings: RewriteSettings,
  pool: SqlWorkerPool,
  opts: { readonly forRun: boolean; readonly signal?: AbortSignal },
): Promise<QueryPlan> => {
  const translate = opts.forRun && w.adapter.translates !== undefined;
  const signal = opts.signal ? { signal: opts.signal } : {};
  const p = await prepareQuery(w, sql, settings, pool, { translate, ...signal });
  const original: CostInput = { sql, ...(p.costs ? { known: p.costs.original } : {}) };
  const rewritten = p.rulesApplied.length > 0 && !p.fallback && p.rewrittenSql !== sql;
  let candidate: CostInput = rewritten && p.costs ? { sql: p.rewrittenSql, known: p.costs.result } : original;
  let translated = p.translated;
  let fallback = p.fallback;
  let dropped: string | undefined;
  if (opts.forRun && !translate && w.adapter.check) {
    const verdict = w.adapter.check(candidate.sql, undefined);
    if (!verdict.ok) {
      if (candidate === original) throw verdict.error;
      const again = w.adapter.check(sql, undefined);
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
  if (translate && rewritten && runsOriginal) {
    // The translation made in the pool is of the rewritten form: the original's, checked again without rewriting.
    translated = (await prepareQuery(w, sql, settings, pool, { translate, rewrite: false, ...signal }))
      .translated;
  }
  return {
    prepared: p,
    sql: candidate.sql,
    ...(translated !== undefined ? { translated } : {}),
    rulesApplied: runsOriginal ? [] : p.rulesApplied,
    fallback,
    estimate,
    report: costReport(w, pair.original, estimate),
    ...(dropped !== undefined ? { dropped } : {}),
  };
};
