import type { RewriteRule } from '../../../src/core/rewrite/rule.ts';
import type { EngineRunner } from './engines.ts';
import { randomQuery } from './gen-query.ts';
import type { Query } from './model.ts';
import { minimise } from './minimise.ts';
import { check } from './oracle.ts';
import type { Verdict } from './oracle.ts';
import { rng } from './rng.ts';
import { randomData } from './schema.ts';
import type { Data } from './schema.ts';

/**
 * The fuzzing loop for one engine: fresh random data every `queriesPerData` queries, random queries checked
 * by the oracles, counterexamples minimised and kept. Bounded by a query count and a time budget, so CI can
 * run a fixed-seed prefix and `npm run fuzz:rewrite` a long run.
 */
export type Counterexample = {
  readonly engine: EngineRunner['engine'];
  readonly seed: number;
  readonly index: number;
  readonly oracle: string;
  readonly rules: readonly string[];
  readonly detail: string;
  readonly sql: string;
  readonly rewrittenSql: string;
  readonly data: Data;
};

export type FuzzStats = {
  generated: number;
  refused: number;
  rewritten: number;
  tlpChecks: number;
  ms: number;
  /** Rewrites per rule (a query counts once per rule that fired on it). */
  fired: Record<string, number>;
  /** Refusal messages, most common first (to keep the refusal rate low). */
  refusals: Record<string, number>;
  counterexamples: Counterexample[];
};

export type FuzzOptions = {
  readonly seed: number;
  readonly maxQueries: number;
  readonly budgetMs: number;
  readonly queriesPerData?: number;
  /** Probability of running TLP on an eligible query. */
  readonly tlpRate?: number;
  /** Minimise counterexamples (slower; off where only detection matters). */
  readonly minimise?: boolean;
  readonly onCounterexample?: (c: Counterexample) => void;
  /** Stop after this many counterexamples. */
  readonly stopAfter?: number;
  /** The rules to run (default: all registered); tests pass a deliberately broken one. */
  readonly rules?: readonly RewriteRule[];
};

const shortError = (e: string): string =>
  e
    .replace(/\s+/g, ' ')
    .replace(/"[^"]*"|'[^']*'/g, '…')
    .slice(0, 70);

export const fuzz = async (engine: EngineRunner, opts: FuzzOptions): Promise<FuzzStats> => {
  const start = performance.now();
  const stats: FuzzStats = {
    generated: 0,
    refused: 0,
    rewritten: 0,
    tlpChecks: 0,
    ms: 0,
    fired: {},
    refusals: {},
    counterexamples: [],
  };
  const dataRng = rng(opts.seed ^ 0x5eed);
  const queryRng = rng(opts.seed);
  const perData = opts.queriesPerData ?? 40;
  let data: Data = randomData(dataRng);
  for (let i = 0; i < opts.maxQueries && performance.now() - start < opts.budgetMs; i++) {
    if (i % perData === 0) {
      data = randomData(dataRng);
      await engine.load(data);
    }
    const q: Query = randomQuery(queryRng.fork(), engine.engine);
    stats.generated++;
    const tlp = queryRng.chance(opts.tlpRate ?? 0.3);
    const verdict: Verdict = await check(engine, q, { tlp, ...(opts.rules ? { rules: opts.rules } : {}) });
    if (verdict.kind === 'refused') {
      stats.refused++;
      const key = shortError(verdict.error);
      stats.refusals[key] = (stats.refusals[key] ?? 0) + 1;
      continue;
    }
    if (verdict.kind === 'ok') {
      if (verdict.tlp) stats.tlpChecks++;
      if (verdict.rewritten) {
        stats.rewritten++;
        for (const r of verdict.rewritten.rules) stats.fired[r] = (stats.fired[r] ?? 0) + 1;
      }
      continue;
    }
    const found = opts.minimise ? await minimise(engine, q, data, verdict, opts.rules) : { q, data, verdict };
    const c: Counterexample = {
      engine: engine.engine,
      seed: opts.seed,
      index: i,
      oracle: found.verdict.oracle,
      rules: found.verdict.rules,
      detail: found.verdict.detail,
      sql: found.verdict.sql,
      rewrittenSql: found.verdict.rewrittenSql,
      data: found.data,
    };
    stats.counterexamples.push(c);
    opts.onCounterexample?.(c);
    await engine.load(data);
    if (stats.counterexamples.length >= (opts.stopAfter ?? Infinity)) break;
  }
  stats.ms = performance.now() - start;
  return stats;
};

/** A counterexample as an entry of test/differential/regressions.ts (paste it there: it becomes a test). */
export const asRegression = (c: Counterexample): string => {
  // A TLP failure names four statements; each is checked on its own (one of them changes when rewritten).
  const statements = c.oracle === 'tlp' ? c.sql.split(';\n') : [c.sql];
  return statements.map((sql, i) => entry({ ...c, sql }, statements.length > 1 ? `-${i}` : '')).join('\n');
};

const entry = (c: Counterexample, suffix: string): string => {
  const rows = Object.entries(c.data)
    .map(
      ([t, rs]) =>
        `    ${t}: [${rs.map((r) => `[${r.map((v) => (v === null ? 'null' : JSON.stringify(v))).join(', ')}]`).join(', ')}],`,
    )
    .join('\n');
  return `  {
    id: 'fuzz-${c.engine}-${c.seed}-${c.index}${suffix}',
    engine: '${c.engine}',
    rules: ${JSON.stringify(c.rules)},
    why: ${JSON.stringify(`${c.oracle}: ${c.detail.replace(/\s+/g, ' ').slice(0, 160)}`)},
    sql: ${JSON.stringify(c.sql)},
    data: {
${rows}
    },
  },`;
};
