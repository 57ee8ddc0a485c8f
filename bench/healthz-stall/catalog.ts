/**
 * What crossing to a SQL worker thread would cost per request if the catalog went with every task, and what
 * the static cost models cost: structured-clone time and serialized size of the demo catalog (introspected at
 * the given scale) and of a large synthetic one; the pool sends a catalog once per thread and version instead.
 * Also the static pricing of a TPC-H-like query and of the 1 MiB IN list, in-process.
 *
 *   node_modules/.bin/node bench/healthz-stall/catalog.ts [demoScale=1]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { catalogOf } from '../../src/core/catalog.ts';
import type { Catalog, TableInfo } from '../../src/core/catalog.ts';
import { costModelOf } from '../../src/core/cost/models/index.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { openDuckDbLocal } from '../../src/warehouses/duckdb-local.ts';

const scale = Number(process.argv[2] ?? 1);
const fmt = (n: number): string => n.toFixed(3);

const timeEach = (runs: number, f: () => unknown): number => {
  for (let i = 0; i < 3; i++) f();
  const t = performance.now();
  for (let i = 0; i < runs; i++) f();
  return (performance.now() - t) / runs;
};

const synthetic = (tables: number, columns: number, partitions: number): Catalog => {
  const list: TableInfo[] = [];
  for (let t = 0; t < tables; t++) {
    const cols = Array.from({ length: columns }, (_, c) => ({
      name: `c${c}`,
      type: 'int64' as const,
      rawType: 'BIGINT',
      nullable: true,
    }));
    const bytes = Object.fromEntries(cols.map((c) => [c.name, 8_000_000]));
    list.push({
      name: `t${t}`,
      columns: cols,
      primaryKey: ['c0'],
      partitioning: { column: 'c1', granularity: 'month' },
      stats: {
        rows: 1_000_000,
        columnBytes: bytes,
        partitions: Array.from({ length: partitions }, (_, p) => ({
          key: `20${String(10 + Math.floor(p / 12))}-${String((p % 12) + 1).padStart(2, '0')}`,
          rows: 10_000,
          columnBytes: bytes,
        })),
      },
    });
  }
  return catalogOf(list);
};

const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-bench-catalog-'));
try {
  const adapter = await openDuckDbLocal({
    dataDir,
    demoScale: scale,
    connections: 1,
    progress: () => undefined,
  });
  const demo = await adapter.introspect();
  await adapter.close();
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}, demo scale ${scale}`,
  );
  console.log('\n| catalog | tables | serialized bytes | structuredClone ms |');
  console.log('|---|---:|---:|---:|');
  for (const [name, c] of [
    [`demo (scale ${scale})`, demo],
    ['synthetic 200 tables × 40 columns × 60 partitions', synthetic(200, 40, 60)],
    ['synthetic 2,000 tables × 40 columns × 60 partitions', synthetic(2000, 40, 60)],
  ] as const) {
    const ms = timeEach(name.includes('2,000') ? 5 : 50, () => structuredClone(c));
    console.log(`| ${name} | ${c.tables.size} | ${serialize(c).length} | ${fmt(ms)} |`);
  }

  const q3 = `SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
    FROM customer, orders, lineitem
    WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
      AND o_orderdate < DATE '1995-03-15' AND l_shipdate > DATE '1995-03-15'
    GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC LIMIT 10`;
  const items: string[] = [];
  for (let i = 1, size = 60; size < 1024 * 1024 - 64; i++) {
    items.push(String(i));
    size += String(i).length + 2;
  }
  const inList = `SELECT count(*) FROM lineitem WHERE l_orderkey IN (${items.join(', ')})`;
  console.log('\n| static pricing, in-process | model | ms per estimate |');
  console.log('|---|---|---:|');
  for (const [name, sql] of [
    ['TPC-H Q3', q3],
    ['1 MiB IN list', inList],
  ] as const) {
    const parsed = parseSql(sql, 'postgres');
    if (!parsed.ok) throw new Error(`${name} did not parse`);
    const stmt = parsed.statements[0] as Statement;
    for (const spec of [
      { kind: 'bigquery-bytes', usdPerTib: 6.25 },
      { kind: 'snowflake-heuristic', usdPerCredit: 3, creditsPerHour: 1 },
      { kind: 'aurora-heuristic', usdPerMillionIo: 0.2, usdPerAcuHour: 0.12 },
    ] as const) {
      const model = costModelOf(spec);
      const ms = timeEach(name === 'TPC-H Q3' ? 200 : 5, () => model.estimate(stmt, demo));
      console.log(`| ${name} | ${spec.kind} | ${fmt(ms)} |`);
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
