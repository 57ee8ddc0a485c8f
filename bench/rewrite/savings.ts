/**
 * Savings of the rewrite over the anti-pattern corpus under the real cost models on main: BigQuery's byte
 * model (bytes billed, partition pruning by month), the Snowflake and the Aurora heuristics (USD). Each
 * model gates the rewrite as production does (prepare-query.ts passes the warehouse's model as `cost`);
 * the ungated rewrite is priced too, to show what the gate refused.
 */
import { performance } from 'node:perf_hooks';
import type { Catalog } from '../../src/core/catalog.ts';
import type { CostEstimate, CostModel } from '../../src/core/cost/model.ts';
import { bigQueryByteModel } from '../../src/core/cost/models/bigquery-bytes.ts';
import { auroraHeuristic, snowflakeHeuristic } from '../../src/core/cost/models/heuristic.ts';
import { rewriteStatement } from '../../src/core/rewrite/engine.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { ANTI_PATTERNS } from '../../test/differential/anti-patterns/corpus.ts';
import { TPCH_STATS_CATALOG, monthlyPartitions } from './tpch-stats.ts';

type Measure = { name: string; unit: string; model: CostModel; value: (s: Statement, c: Catalog) => number };

const bq = bigQueryByteModel({ usdPerTib: 6.25, partitions: monthlyPartitions });
export const MEASURES: readonly Measure[] = [
  {
    name: 'BigQuery bytes billed',
    unit: 'GiB',
    model: bq,
    value: (s, c) => Number(bq.estimate(s, c).assumptions.bytes_billed) / 2 ** 30,
  },
  {
    name: 'Snowflake heuristic',
    unit: 'µUSD',
    model: snowflakeHeuristic({ usdPerCredit: 3, creditsPerHour: 1 }),
    value: (s, c) => snowflakeHeuristic({ usdPerCredit: 3, creditsPerHour: 1 }).estimate(s, c).usd * 1e6,
  },
  {
    name: 'Aurora heuristic',
    unit: 'µUSD',
    model: auroraHeuristic({ usdPerMillionIo: 0.2, usdPerAcuHour: 0.12 }),
    value: (s, c) => auroraHeuristic({ usdPerMillionIo: 0.2, usdPerAcuHour: 0.12 }).estimate(s, c).usd * 1e6,
  },
];

type Totals = { queries: number; before: number; after: number };

export type SavingsReport = {
  measure: Measure;
  perRule: Map<string, Totals>;
  total: Totals;
  /** Rewritten queries the model rates dearer than their original (must be 0: the gate refuses them). */
  dearer: number;
  /** Queries whose ungated rewrite the model rates dearer: what the gate kept from running. */
  refusedByGate: number;
};

const rewrite = (
  stmt: Statement,
  sql: string,
  dialect: (typeof ANTI_PATTERNS)[number]['dialect'],
  cost?: (s: Statement) => CostEstimate,
) =>
  rewriteStatement(stmt, sql, {
    dialect,
    catalog: TPCH_STATS_CATALOG,
    disabled: new Set(),
    budgetMs: 1000,
    now: () => performance.now(),
    ...(cost ? { cost } : {}),
  }).statement;

export const savings = (measure: Measure): SavingsReport => {
  const c = TPCH_STATS_CATALOG;
  const perRule = new Map<string, Totals>();
  const total: Totals = { queries: 0, before: 0, after: 0 };
  let dearer = 0;
  let refusedByGate = 0;
  for (const a of ANTI_PATTERNS) {
    const p = parseSql(a.sql, a.dialect);
    if (!p.ok || !p.statements[0]) continue;
    const stmt = p.statements[0];
    const gated = rewrite(stmt, a.sql, a.dialect, (s) => measure.model.estimate(s, c));
    const [before, after] = [measure.value(stmt, c), measure.value(gated, c)];
    if (after > before + 1e-12) dearer++;
    if (measure.value(rewrite(stmt, a.sql, a.dialect), c) > before + 1e-12) refusedByGate++;
    const e = perRule.get(a.rule) ?? { queries: 0, before: 0, after: 0 };
    perRule.set(a.rule, { queries: e.queries + 1, before: e.before + before, after: e.after + after });
    total.queries++;
    total.before += before;
    total.after += after;
  }
  return { measure, perRule, total, dearer, refusedByGate };
};
