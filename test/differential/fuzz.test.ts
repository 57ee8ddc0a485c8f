import { afterAll, describe, expect, it } from 'vitest';
import type { RewriteRule } from '../../src/core/rewrite/rule.ts';
import { WAREHOUSE_DIALECTS } from '../../src/core/rewrite/rule.ts';
import { RULES } from '../../src/core/rewrite/rules/index.ts';
import { isRecord } from '../../src/core/sql/tree.ts';
import { openEngine } from './fuzz/engines.ts';
import type { EngineRunner } from './fuzz/engines.ts';
import { asRegression, fuzz } from './fuzz/fuzz.ts';
import type { FuzzStats } from './fuzz/fuzz.ts';
import { randomQuery } from './fuzz/gen-query.ts';
import { printQuery } from './fuzz/model.ts';
import { rng } from './fuzz/rng.ts';
import type { Engine } from './fuzz/schema.ts';

/**
 * The rewrite adversary in CI (SQLancer-style; fuzz/ holds it): random queries over NULL-heavy,
 * duplicate-heavy, type-mixed data, checked original vs rewritten and by Ternary Logic Partitioning, on
 * DuckDB, PostgreSQL and MariaDB. Fixed seeds and a bounded number of queries keep it deterministic and
 * short; `npm run fuzz:rewrite -- --minutes N --seed S` runs the same loop for longer.
 * `SQLGATE_FUZZ_QUERIES` widens the CI run.
 */
const urls = { postgres: process.env.SQLGATE_TEST_POSTGRES_URL, mysql: process.env.SQLGATE_TEST_MYSQL_URL };
const SCALE = Number(process.env.SQLGATE_FUZZ_QUERIES ?? 1);
const BUDGET: Record<Engine, { seed: number; queries: number }> = {
  duckdb: { seed: 1401, queries: 400 * SCALE },
  postgres: { seed: 1402, queries: 400 * SCALE },
  mariadb: { seed: 1403, queries: 1200 * SCALE },
};
const fired = new Map<string, number>();

const report = (engine: Engine, s: FuzzStats): string =>
  `${engine}: ${s.generated} queries in ${(s.ms / 1000).toFixed(1)} s, ${s.refused} refused, ${s.rewritten} rewritten, ` +
  `${s.tlpChecks} TLP checks; fired ${JSON.stringify(s.fired)}; refusals ${JSON.stringify(s.refusals)}`;

for (const engineName of ['duckdb', 'postgres', 'mariadb'] as const) {
  const unset = (engineName === 'postgres' && !urls.postgres) || (engineName === 'mariadb' && !urls.mysql);
  if (unset) console.log(`rewrite fuzzing on ${engineName} skipped: its SQLGATE_TEST_*_URL is not set`);
  describe.skipIf(unset)(`rewrite fuzzing on ${engineName}`, () => {
    it('finds no query whose rewrite changes its result', async () => {
      const engine = (await openEngine(engineName, urls)) as EngineRunner;
      try {
        const { seed, queries } = BUDGET[engineName];
        const stats = await fuzz(engine, { seed, maxQueries: queries, budgetMs: 90_000, minimise: true });
        console.log(report(engineName, stats));
        for (const [r, n] of Object.entries(stats.fired)) fired.set(r, (fired.get(r) ?? 0) + n);
        expect(stats.counterexamples.map(asRegression).join('\n')).toBe('');
        // The generator must stay useful: engines accept most queries, and most are rewritten.
        expect(stats.refused / stats.generated).toBeLessThan(0.12);
        expect(stats.rewritten / stats.generated).toBeGreaterThan(0.4);
        expect(stats.tlpChecks).toBeGreaterThan(0);
      } finally {
        await engine.close();
      }
    }, 150_000);
  });
}

/** A rule that turns every LEFT JOIN into an INNER JOIN: the fuzzer must catch it. */
const broken: RewriteRule = {
  name: 'broken-left-to-inner',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  obligations: [],
  apply: (tree) => {
    const text = JSON.stringify(tree);
    if (!text.includes('"kind":"Left"')) return tree;
    return JSON.parse(text.replaceAll('"kind":"Left"', '"kind":"Inner"')) as typeof tree;
  },
};

describe('the fuzzer itself', () => {
  it('catches a broken rule and minimises the counterexample', async () => {
    const engine = (await openEngine('duckdb', urls)) as EngineRunner;
    try {
      const stats = await fuzz(engine, {
        seed: 7,
        maxQueries: 150,
        budgetMs: 100_000,
        minimise: true,
        stopAfter: 1,
        rules: [broken],
      });
      expect(stats.counterexamples.length).toBeGreaterThan(0);
      const c = stats.counterexamples[0];
      expect(c?.rules).toEqual(['broken-left-to-inner']);
      // Delta debugging leaves a short query: one LEFT JOIN and little else.
      expect(c?.sql.length ?? 0).toBeLessThan(250);
      expect(asRegression(c as NonNullable<typeof c>)).toMatch(/sql: "SELECT .*LEFT JOIN/);
    } finally {
      await engine.close();
    }
  }, 150_000);

  it('prints every query the same way each time (minimisation and replay depend on it)', () => {
    for (const target of ['duckdb', 'postgres', 'mariadb'] as const) {
      const r = rng(99);
      for (let i = 0; i < 50; i++) {
        const q = randomQuery(r.fork(), target);
        const d = target === 'mariadb' ? 'mysql' : 'postgres';
        expect(printQuery(q, d)).toBe(printQuery(q, d));
      }
    }
  });

  it('is reproducible from its seed', () => {
    const a = randomQuery(rng(5), 'postgres');
    const b = randomQuery(rng(5), 'postgres');
    expect(printQuery(a, 'postgres')).toBe(printQuery(b, 'postgres'));
    expect(isRecord(a)).toBe(true);
  });
});

afterAll(() => {
  if (fired.size > 0) {
    console.log('fuzzing: rewrites per rule over all engines', Object.fromEntries(fired));
    const silent = RULES.map((r) => r.name).filter((r) => !fired.has(r));
    if (silent.length > 0) console.log('fuzzing: rules that never fired', silent);
  }
});
