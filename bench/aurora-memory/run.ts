/**
 * Streams a 10-million-row result through the aurora-postgres adapter and reports peak RSS above idle.
 * Usage: SQLGATE_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test node bench/aurora-memory/run.ts [rows]
 */
import { openAuroraPostgres } from '../../src/warehouses/aurora-postgres.ts';

const url = process.env.SQLGATE_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const rows = Number(process.argv[2] ?? 10_000_000);
const MiB = 1024 * 1024;

const adapter = openAuroraPostgres({ url, poolSize: 1, statementTimeoutMs: 600_000, catalogTtlMs: 60_000 });
await adapter.execute('SELECT 1', { timeoutMs: 10_000 }); // connect first: the pool is part of idle
globalThis.gc?.();
const idle = process.memoryUsage().rss;
let peak = idle;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 10);
const started = performance.now();
const result = await adapter.execute(`SELECT g FROM generate_series(1, ${rows}) g`, { timeoutMs: 600_000 });
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
await adapter.close();

const above = (peak - idle) / MiB;
console.log(
  JSON.stringify({
    rows: result.rows,
    seconds: Number(seconds.toFixed(2)),
    rows_per_second: Math.round(result.rows / seconds),
    idle_rss_mib: Number((idle / MiB).toFixed(1)),
    peak_rss_mib: Number((peak / MiB).toFixed(1)),
    peak_above_idle_mib: Number(above.toFixed(1)),
    target_mib: 200,
    ok: result.rows === rows && above < 200,
  }),
);
process.exitCode = result.rows === rows && above < 200 ? 0 : 1;
