/**
 * Rewrite benchmark: warm latency per query over the TPC-H and TPC-DS corpora, and byte savings per rule
 * over the anti-pattern corpus under a simple BigQuery-like byte model (the lead's model is not on this
 * branch yet): referenced columns × rows × logical size, partitioned tables (orders, lineitem: monthly)
 * billed only for the months `constantRangesOn` selects; no 10 MiB minimum, so small differences show.
 * Run: node_modules/.bin/node bench/rewrite/run.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { readCatalogFile } from '../../src/core/catalog-file.ts';
import type { Catalog } from '../../src/core/catalog.ts';
import { rewriteStatement } from '../../src/core/rewrite/engine.ts';
import { constantRangesOn } from '../../src/core/rewrite/partition-ranges.ts';
import { TPCH_CATALOG } from '../../src/core/rewrite/testing.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { visitObjects } from '../../src/core/sql/tree.ts';
import { ANTI_PATTERNS } from '../../test/differential/anti-patterns/corpus.ts';

const CORPUS = '/work/shared/corpus';
const rewrite = (
  stmt: Statement,
  sql: string,
  dialect: SqlDialect,
  catalog: Catalog,
  cost?: (s: Statement) => number,
) =>
  rewriteStatement(stmt, sql, {
    dialect,
    catalog,
    disabled: new Set(),
    budgetMs: 1000,
    now: () => performance.now(),
    ...(cost ? { cost } : {}),
  });

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};

const latency = (name: 'tpch' | 'tpcds', catalog: Catalog) => {
  const dir = `${CORPUS}/${name}/queries`;
  const times: number[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.sql'))) {
    const sql = readFileSync(`${dir}/${f}`, 'utf8');
    const p = parseSql(sql, 'postgres');
    if (!p.ok || !p.statements[0]) continue;
    const stmt = p.statements[0];
    for (let i = 0; i < 5; i++) rewrite(stmt, sql, 'postgres', catalog); // warm-up
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      rewrite(stmt, sql, 'postgres', catalog);
      times.push(performance.now() - t);
    }
  }
  return { p50: pct(times, 50), p99: pct(times, 99), samples: times.length };
};

const TYPE_BYTES: Record<string, number> = {
  int64: 8,
  float64: 8,
  date: 8,
  timestamp: 8,
  numeric: 16,
  bool: 1,
  string: 22,
};
const ROWS: Record<string, number> = {
  lineitem: 6_000_000,
  orders: 1_500_000,
  customer: 150_000,
  part: 200_000,
  partsupp: 800_000,
  supplier: 10_000,
  nation: 25,
  region: 5,
};
const MONTHS = 84; // 1992-01 … 1998-12

const monthsIn = (r: { from?: string; to?: string }): number => {
  const m = (d: string) => (Number(d.slice(0, 4)) - 1992) * 12 + Number(d.slice(5, 7)) - 1;
  const lo = Math.max(0, r.from === undefined ? 0 : m(r.from));
  const hi = Math.min(MONTHS - 1, r.to === undefined ? MONTHS - 1 : m(r.to));
  return Math.max(0, hi - lo + 1);
};

/** Bytes a scan of the statement would bill under the simple model. */
const bytes = (stmt: Statement): number => {
  const tables = new Set<string>();
  const cols = new Set<string>();
  visitObjects(stmt, (o) => {
    const t = o.table as { name?: { name?: string } } | undefined;
    if (t && typeof t === 'object' && t.name?.name !== undefined && 'alias' in t)
      tables.add(t.name.name.toLowerCase());
    const c = o.column as { name?: { name?: string } } | undefined;
    if (c && typeof c === 'object' && c.name?.name !== undefined) cols.add(c.name.name.toLowerCase());
  });
  let total = 0;
  for (const name of tables) {
    const info = TPCH_CATALOG.tables.get(name);
    if (!info) continue;
    const star = JSON.stringify(stmt).includes('"star"');
    const width = info.columns
      .filter((c) => star || cols.has(c.name))
      .reduce((s, c) => s + (TYPE_BYTES[c.type] ?? 8), 0);
    let fraction = 1;
    if (info.partitioning) {
      const ranges = constantRangesOn(stmt, name, info.partitioning.column);
      if (ranges) fraction = Math.min(1, ranges.reduce((s, r) => s + monthsIn(r), 0) / MONTHS);
    }
    total += width * (ROWS[name] ?? 0) * fraction;
  }
  return total;
};

const savings = () => {
  const perRule = new Map<string, { queries: number; before: number; after: number }>();
  let before = 0;
  let after = 0;
  let dearer = 0;
  for (const a of ANTI_PATTERNS) {
    const p = parseSql(a.sql, a.dialect);
    if (!p.ok || !p.statements[0]) continue;
    const out = rewrite(p.statements[0], a.sql, a.dialect, TPCH_CATALOG, bytes);
    const [b, c] = [bytes(p.statements[0]), bytes(out.statement)];
    before += b;
    after += c;
    if (c > b) dearer++;
    const e = perRule.get(a.rule) ?? { queries: 0, before: 0, after: 0 };
    perRule.set(a.rule, { queries: e.queries + 1, before: e.before + b, after: e.after + c });
  }
  return { perRule, before, after, dearer };
};

const tpcds = readCatalogFile(JSON.parse(readFileSync(`${CORPUS}/tpcds/schema.json`, 'utf8')));
const h = latency('tpch', TPCH_CATALOG);
const ds = latency('tpcds', tpcds.ok ? tpcds.catalog : TPCH_CATALOG);
console.log(
  `latency TPC-H  p50 ${h.p50.toFixed(3)} ms  p99 ${h.p99.toFixed(3)} ms  (${h.samples} warm runs)`,
);
console.log(
  `latency TPC-DS p50 ${ds.p50.toFixed(3)} ms  p99 ${ds.p99.toFixed(3)} ms  (${ds.samples} warm runs)`,
);
const s = savings();
const gib = (x: number) => (x / 2 ** 30).toFixed(2);
for (const [rule, e] of s.perRule)
  console.log(
    `${rule.padEnd(26)} ${String(e.queries).padStart(3)} queries  ${gib(e.before)} → ${gib(e.after)} GiB  (-${(100 * (1 - e.after / e.before)).toFixed(1)}%)`,
  );
console.log(
  `total ${gib(s.before)} → ${gib(s.after)} GiB (-${(100 * (1 - s.after / s.before)).toFixed(1)}%); queries more expensive after rewriting: ${s.dearer}`,
);
