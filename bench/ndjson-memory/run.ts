/**
 * NDJSON streaming through the real gateway process: rows/s, bytes and the server's RSS rise while streaming
 * `SELECT g, 'row ' || g AS label FROM generate_series(1, rows)` from aurora-postgres.
 * Usage: SQLGATE_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test node bench/ndjson-memory/run.ts [rows] [warm-up rows]
 */
import { measureNdjsonMemory } from '../../test/support/ndjson-memory.ts';

const url = process.env.SQLGATE_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const rows = Number(process.argv[2] ?? 10_000_000);
const warmup = Number(process.argv[3] ?? 10);
// Each measure on a fresh (cold) server: first as users start it (bin/sqlgate.js, with its V8 flags), then the
// baseline without them (src/cli/main.ts), in the same run.
let ok = true;
for (const entry of ['bin/sqlgate.js', 'src/cli/main.ts'] as const) {
  const f = await measureNdjsonMemory(url, rows, 56321, warmup, entry);
  const { last, ...figures } = f;
  console.log(
    JSON.stringify({
      ...figures,
      complete: last.complete,
      rows_per_s: Math.round(rows / f.seconds),
      mib_per_s: Number((f.bytes / 1048576 / f.seconds).toFixed(1)),
    }),
  );
  if (f.lines !== rows + 2 || (entry === 'bin/sqlgate.js' && f.riseMiB >= 100)) ok = false;
}
process.exitCode = ok ? 0 : 1;
