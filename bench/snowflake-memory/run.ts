import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openSnowflake } from '../../src/warehouses/snowflake-adapter.ts';

/**
 * Streams a large result from the Snowflake stand-in (in a child process, port 56220) through the snowflake
 * adapter in this process, sampling `process.memoryUsage().rss` every 10 ms; reports the peak above the idle
 * RSS (adapter open, one session logged in, one small query run). Target: < 200 MiB above idle.
 *
 *   SQLGATE_TEST_CORPUS_DIR=/work/shared/corpus node bench/snowflake-memory/run.ts
 */
type Info = {
  url: string;
  account: string;
  user: string;
  password: string;
  database: string;
  schema: string;
};
const child = fork(fileURLToPath(new URL('./standin.ts', import.meta.url)), ['56220'], {
  stdio: 'inherit',
  // The stand-in's own memory is not measured, nor limited by this process's flags.
  execArgv: [],
});
const info = await new Promise<Info>((resolve) => child.once('message', (m) => resolve(m as Info)));
const sf = await openSnowflake({
  account: info.account,
  user: info.user,
  auth: { kind: 'password', password: info.password },
  database: info.database,
  schema: info.schema,
  accessUrl: info.url,
  poolSize: 1,
  statementTimeoutMs: 600_000,
  catalogTtlMs: 60_000,
  credentialsHint: 'bench',
});
const MIB = 1024 * 1024;
// lineitem (8,233 rows) × region (5) × nation (25) = 1,029,125 rows; × 5 more regions = 5,145,625.
const QUERIES: Array<[string, number]> = [
  ['SELECT a.l_orderkey, a.l_comment FROM lineitem a, region b', 8233 * 5],
  ['SELECT a.l_orderkey, a.l_comment FROM lineitem a, region b, nation c', 8233 * 5 * 25],
];
await sf.execute('SELECT 1', { timeoutMs: 10_000 });
let failed = false;
console.log('| rows | time | rows/s | idle RSS | peak RSS | peak above idle |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [sql, expected] of QUERIES) {
  globalThis.gc?.();
  const idle = process.memoryUsage().rss;
  let peak = idle;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const started = Date.now();
  const out = await sf.execute(sql, { timeoutMs: 600_000 });
  const ms = Date.now() - started;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (out.rows !== expected || peak - idle > 200 * MIB) failed = true;
  console.log(
    `| ${out.rows.toLocaleString('en')} | ${(ms / 1000).toFixed(1)} s | ${((out.rows / ms) * 1000).toFixed(0)} | ${(idle / MIB).toFixed(1)} MiB | ${(peak / MIB).toFixed(1)} MiB | **${((peak - idle) / MIB).toFixed(1)} MiB** |`,
  );
}
await sf.close();
child.disconnect();
process.exit(failed ? 1 : 0);
