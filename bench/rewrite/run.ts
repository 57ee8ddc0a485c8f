/**
 * Rewrite benchmark: warm latency per query over the TPC-H and TPC-DS corpora (wall clock and the process's
 * CPU time, which the load of other jobs on a shared machine inflates less), and savings per rule over the
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
import { MEASURES, savings } from './savings.ts';

const CORPUS = '/work/shared/corpus';
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

/** Each query 5 times to warm up, then 20 timed runs of the full engine (rules, printing, parse-back check). */
const latency = (name: 'tpch' | 'tpcds', catalog: Catalog) => {
  const dir = `${CORPUS}/${name}/queries`;
  const wall: number[] = [];
  const cpu: number[] = [];
  let rewritten = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.sql'))) {
    const sql = readFileSync(`${dir}/${f}`, 'utf8');
    const p = parseSql(sql, 'postgres');
    if (!p.ok || !p.statements[0]) continue;
    const stmt: Statement = p.statements[0];
    const run = () =>
      rewriteStatement(stmt, sql, {
        dialect: 'postgres',
        catalog,
        disabled: new Set(),
        budgetMs: 1000,
        now: () => performance.now(),
      });
    for (let i = 0; i < WARM_UP; i++) run();
    if (run().rulesApplied.length > 0) rewritten++;
    for (let i = 0; i < TIMED; i++) {
      const [t, c] = [performance.now(), cpuMs()];
      run();
      wall.push(performance.now() - t);
      cpu.push(cpuMs() - c);
    }
  }
  return { wall, cpu, rewritten, queries: wall.length / TIMED };
};

const fmt = (x: number) => x.toFixed(3);
console.log(
  `load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} (2 cores)`,
);
const tpcds = readCatalogFile(JSON.parse(readFileSync(`${CORPUS}/tpcds/schema.json`, 'utf8')));
for (const [name, catalog] of [
  ['tpch', TPCH_CATALOG],
  ['tpcds', tpcds.ok ? tpcds.catalog : TPCH_CATALOG],
] as const) {
  const r = latency(name, catalog);
  console.log(
    `latency ${name.padEnd(5)} wall p50 ${fmt(pct(r.wall, 50))} ms  p99 ${fmt(pct(r.wall, 99))} ms | cpu p50 ${fmt(pct(r.cpu, 50))} ms  p99 ${fmt(pct(r.cpu, 99))} ms  (${r.wall.length} warm runs, ${r.rewritten}/${r.queries} queries rewritten)`,
  );
}

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
