/**
 * NDJSON streaming through the real gateway process: rows/s, bytes and the server's RSS rise while streaming
 * `SELECT g, 'row ' || g AS label FROM generate_series(1, rows)` from aurora-postgres.
 * Usage: SQLGATE_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test node bench/ndjson-memory/run.ts [rows] [warm-up rows]
 */
import { measureNdjsonMemory } from '../../test/support/ndjson-memory.ts';

const url = process.env.SQLGATE_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const rows = Number(process.argv[2] ?? 10_000_000);
const warmup = Number(process.argv[3] ?? 10_000);
const f = await measureNdjsonMemory(url, rows, 56321, warmup);
console.log(
  JSON.stringify({
    ...f,
    rows_per_s: Math.round(rows / f.seconds),
    mib_per_s: Number((f.bytes / 1048576 / f.seconds).toFixed(1)),
  }),
);
process.exitCode = f.lines === rows + 2 && f.riseMiB < 100 ? 0 : 1;
