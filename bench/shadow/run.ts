/**
 * What shadow verification costs the query a user is waiting for: the tap that fingerprints the rows of a
 * sampled query as they stream (the original's run comes after the response and is not timed here). The same
 * DuckDB statement runs alternately with and without the tap; reports medians, the ratio and rows/s, and the
 * fingerprint alone on rows already in memory. Usage: node bench/shadow/run.ts [rows] [repeats]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createFingerprinter } from '../../src/core/verify/fingerprint.ts';
import { rawJson } from '../../src/core/verify/raw-json.ts';
import { openDuckDbLocal } from '../../src/warehouses/duckdb-local.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
const repeats = Number(process.argv[3] ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'sqlgate-bench-shadow-'));
const file = join(dir, 'bench.duckdb');
const setup = await DuckDBInstance.create(file);
const conn = await setup.connect();
await conn.run(
  `CREATE TABLE t AS SELECT i AS id, CAST(i * 1.25 AS DECIMAL(12,2)) AS amount, 'name ' || (i % 1000) AS name,
     DATE '2020-01-01' + CAST(i % 3000 AS INTEGER) AS day, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 13 END AS g
   FROM range(${rows}) r(i)`,
);
conn.closeSync();
setup.closeSync();

const adapter = await openDuckDbLocal({
  path: file,
  dataDir: dir,
  demoScale: 0,
  connections: 1,
  progress: () => undefined,
});
const key = randomBytes(32);
const sql = 'SELECT * FROM t';
const time = async (tap: boolean): Promise<number> => {
  const fp = createFingerprinter(key);
  const started = performance.now();
  await adapter.execute(sql, {
    timeoutMs: 600_000,
    ...(tap ? { tap: { columns: fp.columns, row: fp.add } } : {}),
  });
  return performance.now() - started;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await time(false);
await time(true);
const plain: number[] = [];
const tapped: number[] = [];
const rss: number[] = [];
for (let i = 0; i < repeats; i++) {
  plain.push(await time(false));
  tapped.push(await time(true));
  rss.push(process.memoryUsage().rss);
}
// The fingerprint alone, on rows shaped as the tap hands them over.
const sample = Array.from({ length: 100_000 }, (_, i) => [
  i,
  rawJson((i * 1.25).toFixed(2)),
  `name ${i % 1000}`,
  '2020-01-01',
  i % 13,
]);
const fp = createFingerprinter(key);
const t0 = performance.now();
for (const r of sample) fp.add(r);
const fpMs = performance.now() - t0;

const p = median(plain);
const t = median(tapped);
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log(`rows ${rows}, repeats ${repeats}, 5 columns (BIGINT, DECIMAL, VARCHAR, DATE, nullable INT)`);
console.log(`execute without tap: median ${p.toFixed(0)} ms (${((rows / p) * 1000).toFixed(0)} rows/s)`);
console.log(
  `execute with tap:    median ${t.toFixed(0)} ms (${((rows / t) * 1000).toFixed(0)} rows/s), ratio ${(t / p).toFixed(2)}`,
);
console.log(
  `fingerprint alone: ${((sample.length / fpMs) * 1000).toFixed(0)} rows/s (${((fpMs * 1000) / sample.length).toFixed(2)} µs/row)`,
);
console.log(`peak RSS during the runs: ${(Math.max(...rss) / 2 ** 20).toFixed(0)} MiB`);
await adapter.close();
rmSync(dir, { recursive: true, force: true });
