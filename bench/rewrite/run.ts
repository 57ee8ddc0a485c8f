/**
 * Rewrite benchmark: warm latency per query over the TPC-H and TPC-DS corpora (wall clock and the process's
 * CPU time — all its threads, so GC and JIT included — which the load of other jobs inflates less), and savings per rule over the
 * anti-pattern corpus under the three real cost models (savings.ts).
 * Run: node_modules/.bin/node bench/rewrite/run.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { readCatalogFile } from '../../src/core/catalog-file.ts';
import type { Catalog } from '../../src/core/catalog.ts';
import { rewriteStatement } from '../../src/core/rewrite/engine.ts';
import { TPCH_CATALOG } from '../../src/core/rewrite/testing.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { CORPUS_DIR } from '../../test/support/corpus-dir.ts';
import { MEASURES, savings } from './savings.ts';

// Beside the checkout (`../shared/corpus`), or SQLGATE_TEST_CORPUS_DIR, as the tests find it.
const CORPUS = CORPUS_DIR;
const WARM_UP = 5;
const TIMED = 20;

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

type Query = { sql: string; stmt: Statement; catalog: Catalog };

const load = (name: 'tpch' | 'tpcds', catalog: Catalog): Query[] => {
  const dir = `${CORPUS}/${name}/queries`;
  return readdirSync(dir)
    .filter((x) => x.endsWith('.sql'))
    .sort()
    .flatMap((f) => {
      const sql = readFileSync(`${dir}/${f}`, 'utf8');
      const p = parseSql(sql, 'postgres');
      return p.ok && p.statements[0] ? [{ sql, stmt: p.statements[0], catalog }] : [];
    });
};

/** The full engine (rules, printing, parse-back check) on one query. */
const run = (q: Query) =>
  rewriteStatement(q.stmt, q.sql, {
    dialect: 'postgres',
    catalog: q.catalog,
    disabled: new Set(),
    budgetMs: 1000,
    now: () => performance.now(),
  });

/**
 * Warm: 5 rounds over every query of both corpora first (so neither corpus pays the JIT warm-up for the
 * other), then 20 timed rounds, round-robin over the queries (a burst of load from other jobs then spreads
 * over many queries instead of inflating one).
 */
const latency = (corpora: ReadonlyArray<readonly [string, Query[]]>) => {
  for (let i = 0; i < WARM_UP; i++) for (const [, qs] of corpora) qs.forEach(run);
  return corpora.map(([name, qs]) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < TIMED; i++)
      for (const q of qs) {
        const [t, c] = [performance.now(), cpuMs()];
        run(q);
        wall.push(performance.now() - t);
        cpu.push(cpuMs() - c);
      }
    const rewritten = qs.filter((q) => run(q).rulesApplied.length > 0).length;
    return { name, wall, cpu, rewritten, queries: qs.length };
  });
};

const fmt = (x: number) => x.toFixed(3);
console.log(
  `load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} (2 cores)`,
);
const tpcds = readCatalogFile(JSON.parse(readFileSync(`${CORPUS}/tpcds/schema.json`, 'utf8')));
for (const r of latency([
  ['tpch', load('tpch', TPCH_CATALOG)],
  ['tpcds', load('tpcds', tpcds.ok ? tpcds.catalog : TPCH_CATALOG)],
]))
  console.log(
    `latency ${r.name.padEnd(5)} wall p50 ${fmt(pct(r.wall, 50))} ms  p99 ${fmt(pct(r.wall, 99))} ms | cpu p50 ${fmt(pct(r.cpu, 50))} ms  p99 ${fmt(pct(r.cpu, 99))} ms  (${r.wall.length} warm runs, ${r.rewritten}/${r.queries} queries rewritten)`,
  );

for (const measure of MEASURES) {
  const s = savings(measure);
  const n = (x: number) => x.toFixed(measure.unit === 'GiB' ? 2 : 1);
  const cut = (t: { before: number; after: number }) =>
    t.before > 0 ? `-${(100 * (1 - t.after / t.before)).toFixed(1)}%` : '0%';
  console.log(`\n${measure.name} (${measure.unit}), gated by the same model:`);
  for (const [rule, e] of s.perRule)
    console.log(
      `  ${rule.padEnd(26)} ${String(e.queries).padStart(3)} queries  ${n(e.before)} → ${n(e.after)}  (${cut(e)})`,
    );
  console.log(
    `  total ${n(s.total.before)} → ${n(s.total.after)} (${cut(s.total)}); more expensive after rewriting: ${s.dearer}; ungated rewrites this model rates dearer (refused): ${s.refusedByGate}`,
  );
}
