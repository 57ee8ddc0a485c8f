import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startGatewayProcess } from '../helpers/process.ts';

const MiB = 1024 * 1024;

export type NdjsonMemoryFigures = {
  rows: number;
  warmupRows: number;
  /** How the server was started: `bin/sqlgate.js` (as users start it) or `src/cli/main.ts` (no V8 flags). */
  entry: string;
  /** The server process's V8 flags (its command line). */
  execArgv: string[];
  lines: number;
  last: Record<string, unknown>;
  seconds: number;
  bytes: number;
  idleRssMiB: number;
  peakRssMiB: number;
  riseMiB: number;
};

/**
 * Starts a fresh `sqlgate serve` as a child process (cold: it has streamed nothing) with aurora connected to
 * `pgUrl`, streams `SELECT … FROM generate_series(1, rows)` with Accept: application/x-ndjson, reading it as fast
 * as it comes while counting lines (nothing kept), and samples the server's VmRSS from /proc every 50 ms. The
 * rise is the peak above the RSS after a tiny first stream of `warmupRows` rows (it opens the pool's connection
 * and loads the code the stream runs). `entry` `src/cli/main.ts` starts the server without the V8 flags
 * `bin/sqlgate.js` gives it, for the before/after comparison in bench/ndjson-memory.
 */
export const measureNdjsonMemory = async (
  pgUrl: string,
  rows: number,
  port: number,
  warmupRows = 10,
  entry: 'bin/sqlgate.js' | 'src/cli/main.ts' = 'bin/sqlgate.js',
): Promise<NdjsonMemoryFigures> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-ndjson-mem-'));
  const env = {
    SQLGATE_DATA_DIR: dataDir,
    SQLGATE_PORT: String(port),
    SQLGATE_AURORA_URL: pgUrl,
    SQLGATE_AURORA_POOL_SIZE: '2',
    SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: 'true',
    SQLGATE_DEMO_SCALE: '0.002',
    SQLGATE_STATEMENT_TIMEOUT_MS: '900000',
    SQLGATE_LOG_LEVEL: 'warn',
  };
  const key = (await runCli(['keys', 'create', '--account', 'ndjson-mem@example.com'], env)).trim();
  const gw = await startGatewayProcess(env, 180_000, entry);
  const pid = gw.proc.pid ?? 0;
  const rss = (): number =>
    Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const stream = async (n: number) => {
    const req = request(`${gw.url}/query`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/x-ndjson',
      },
    });
    req.end(
      JSON.stringify({
        warehouse: 'aurora',
        query: `SELECT g, 'row ' || g AS label FROM generate_series(1, ${n}) AS s(g)`,
      }),
    );
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    if (res.statusCode !== 200) throw new Error(`status ${String(res.statusCode)}`);
    let lines = 0;
    let bytes = 0;
    let tail = '';
    for await (const chunk of res as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      // Only the end of the stream is kept: the last line.
      tail = (tail + chunk.toString('utf8')).slice(-4096);
    }
    const last = JSON.parse(tail.trimEnd().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    return { lines, bytes, last };
  };
  try {
    await stream(warmupRows);
    await new Promise((r) => setTimeout(r, 500));
    const idle = rss();
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
    const started = performance.now();
    const out = await stream(rows);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rss());
    const execArgv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a.startsWith('--'));
    return {
      rows,
      warmupRows,
      entry,
      execArgv,
      lines: out.lines,
      last: out.last,
      bytes: out.bytes,
      seconds: Number(seconds.toFixed(1)),
      idleRssMiB: Number((idle / MiB).toFixed(1)),
      peakRssMiB: Number((peak / MiB).toFixed(1)),
      riseMiB: Number(((peak - idle) / MiB).toFixed(1)),
    };
  } finally {
    gw.proc.kill('SIGTERM');
    await gw.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
};
