/**
 * The rewrite adversary, for longer than CI runs it: random queries over NULL-heavy, type-mixed data on
 * DuckDB, PostgreSQL and MariaDB, original vs rewritten and Ternary Logic Partitioning; counterexamples are
 * minimised and printed as entries for test/differential/regressions.ts.
 *
 * Run: npm run fuzz:rewrite -- --minutes 10 --seed 42 [--engines duckdb,postgres,mariadb]
 * PostgreSQL and MariaDB need SQLGATE_TEST_POSTGRES_URL / SQLGATE_TEST_MYSQL_URL (skipped otherwise).
 * The minutes are split evenly across the engines, which run one after the other (kind to a shared box).
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { openEngine } from '../../test/differential/fuzz/engines.ts';
import { asRegression, fuzz } from '../../test/differential/fuzz/fuzz.ts';
import type { FuzzStats } from '../../test/differential/fuzz/fuzz.ts';
import { ENGINES } from '../../test/differential/fuzz/schema.ts';
import type { Engine } from '../../test/differential/fuzz/schema.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
    engines: { type: 'string', default: ENGINES.join(',') },
  },
});
const minutes = Number(values.minutes);
const seed = Number(values.seed);
const engines = values.engines
  .split(',')
  .filter((e): e is Engine => (ENGINES as readonly string[]).includes(e));
if (!(minutes > 0) || !Number.isInteger(seed) || engines.length === 0) {
  console.error('usage: npm run fuzz:rewrite -- --minutes N --seed S [--engines duckdb,postgres,mariadb]');
  process.exit(2);
}
const urls = { postgres: process.env.SQLGATE_TEST_POSTGRES_URL, mysql: process.env.SQLGATE_TEST_MYSQL_URL };
const share = (minutes * 60_000) / engines.length;
console.log(
  `fuzz:rewrite seed ${seed}, ${minutes} min over ${engines.join(', ')}; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);

const all: Array<[Engine, FuzzStats]> = [];
for (const [i, name] of engines.entries()) {
  const engine = await openEngine(name, urls);
  if (!engine) {
    console.log(`${name}: skipped (its SQLGATE_TEST_*_URL is not set)`);
    continue;
  }
  try {
    const stats = await fuzz(engine, {
      seed: seed + i,
      maxQueries: Number.MAX_SAFE_INTEGER,
      budgetMs: share,
      minimise: true,
      onCounterexample: (c) =>
        console.log(`\n${name}: counterexample (${c.oracle}, ${c.rules.join(', ')})\n${asRegression(c)}\n`),
    });
    all.push([name, stats]);
    const perMinute = (stats.generated / stats.ms) * 60_000;
    console.log(
      `${name}: ${stats.generated} queries in ${(stats.ms / 60_000).toFixed(1)} min (${perMinute.toFixed(0)}/min), ` +
        `${stats.refused} refused (${((100 * stats.refused) / stats.generated).toFixed(1)} %), ${stats.rewritten} rewritten, ` +
        `${stats.tlpChecks} TLP checks, ${stats.counterexamples.length} counterexamples`,
    );
    console.log(`  rewrites per rule: ${JSON.stringify(stats.fired)}`);
    const top = Object.entries(stats.refusals)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5);
    if (top.length > 0) console.log(`  most common refusals: ${JSON.stringify(Object.fromEntries(top))}`);
  } finally {
    await engine.close();
  }
}
const total = all.reduce((n, [, s]) => n + s.counterexamples.length, 0);
console.log(`\n${total} counterexample(s) in all`);
process.exit(total > 0 ? 1 : 0);
