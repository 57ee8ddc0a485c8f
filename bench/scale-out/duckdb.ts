/**
 * The baseline of POST /query in local mode: `SELECT 1` through the DuckDB node API alone, the way the local
 * warehouse runs it (the same demo file, read-only, 2 threads, a pool of 4 connections, each statement streamed
 * and its chunks read), by 50 concurrent callers for `seconds`, in `workers` processes. Prints one JSON line:
 * statements/s (all processes), p50 and p99 in ms (the first process's). With `prepared`, the statement is
 * prepared once per connection and streamed from there (as the local warehouse runs a repeated statement since
 * run 7); by default each call is `connection.stream(text)` (split, prepare, stream).
 *
 *   node_modules/.bin/node bench/scale-out/duckdb.ts <demo.duckdb> <seconds> [workers=1] [stream|prepared]
 */
import cluster from 'node:cluster';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';

const [file = '', secondsArg = '10', workersArg = '1', mode = 'stream'] = process.argv.slice(2);
const seconds = Number(secondsArg);
const workers = Number(workersArg);

const measure = async (): Promise<{ n: number; p50: number; p99: number }> => {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY', threads: '2' });
  const idle: DuckDBConnection[] = [];
  for (let i = 0; i < 4; i++) idle.push(await instance.connect());
  const waiters: Array<(c: DuckDBConnection) => void> = [];
  const acquire = (): Promise<DuckDBConnection> =>
    Promise.resolve(idle.pop() ?? new Promise<DuckDBConnection>((r) => waiters.push(r)));
  const release = (c: DuckDBConnection): void => {
    const w = waiters.shift();
    if (w) w(c);
    else idle.push(c);
  };
  const prepared = new Map<DuckDBConnection, DuckDBPreparedStatement>();
  const once = async (): Promise<void> => {
    const c = await acquire();
    try {
      let statement = prepared.get(c);
      if (mode === 'prepared' && statement === undefined)
        prepared.set(c, (statement = await c.prepare('SELECT 1')));
      const result = statement ? await statement.stream() : await c.stream('SELECT 1');
      for (
        let ch = await result.fetchChunk();
        ch !== null && ch.rowCount > 0;
        ch = await result.fetchChunk()
      );
    } finally {
      release(c);
    }
  };
  const run = async (ms: number, times?: number[]): Promise<number> => {
    const until = performance.now() + ms;
    let n = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (performance.now() < until) {
          const t = performance.now();
          await once();
          times?.push(performance.now() - t);
          n++;
        }
      }),
    );
    return n;
  };
  await run(2_000); // warm-up
  const times: number[] = [];
  const n = await run(seconds * 1000, times);
  times.sort((a, b) => a - b);
  const at = (q: number): number => Math.round((times[Math.floor(q * (times.length - 1))] ?? 0) * 10) / 10;
  return { n, p50: at(0.5), p99: at(0.99) };
};

if (cluster.isPrimary && workers > 1) {
  const results: Array<{ n: number; p50: number; p99: number }> = [];
  for (let i = 0; i < workers; i++)
    cluster.fork().on('message', (m: { n: number; p50: number; p99: number }) => {
      results.push(m);
      if (results.length === workers) {
        const first = results[0]!;
        const n = results.reduce((t, r) => t + r.n, 0);
        process.stdout.write(`${JSON.stringify({ rps: n / seconds, p50: first.p50, p99: first.p99 })}\n`);
        for (const w of Object.values(cluster.workers ?? {})) w?.kill();
      }
    });
} else {
  const r = await measure();
  if (cluster.isWorker) process.send?.(r);
  else process.stdout.write(`${JSON.stringify({ rps: r.n / seconds, p50: r.p50, p99: r.p99 })}\n`);
}
