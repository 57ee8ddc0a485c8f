/**
 * The form of the memory benchmark: the real gateway process (`sqlgate serve`, aurora connected to
 * PostgreSQL) runs a 10-million-row `generate_series` query through POST /query; its RSS is sampled from
 * /proc every 20 ms and the peak above idle is reported. Target: < 200 MiB above idle.
 * Usage: SQLGATE_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test node bench/aurora-memory/server.ts [rows]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const url = process.env.SQLGATE_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const rows = Number(process.argv[2] ?? 10_000_000);
const root = join(import.meta.dirname, '..', '..');
const node = join(root, 'node_modules', '.bin', 'node');
const cli = join(root, 'bin', 'sqlgate.js');
const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-bench-mem-'));
const env = {
  ...process.env,
  SQLGATE_DATA_DIR: dataDir,
  SQLGATE_PORT: '0',
  SQLGATE_AURORA_URL: url,
  SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: 'true',
  SQLGATE_DEMO_SCALE: '0.01',
  SQLGATE_STATEMENT_TIMEOUT_MS: '600000',
  SQLGATE_LOG_LEVEL: 'warn',
};
const MiB = 1024 * 1024;

const key = spawnSync(node, [cli, 'keys', 'create', '--account', 'bench@example.com'], {
  env,
  encoding: 'utf8',
}).stdout.trim();
const server = spawn(node, [cli, 'serve'], { env });
let out = '';
server.stdout.on('data', (d: Buffer) => (out += d.toString()));
while (!/Try: curl/.test(out)) await new Promise((r) => setTimeout(r, 100));
const base = /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '';
const pid = server.pid ?? 0;
const rss = (): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

const post = (query: string) =>
  fetch(`${base}/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ warehouse: 'aurora', query }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as { rows?: number } }));

await post('SELECT 1 AS warm'); // connect and compile first: the pool is part of idle
await new Promise((r) => setTimeout(r, 500));
const idle = rss();
let peak = idle;
const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
const started = performance.now();
const res = await post(`SELECT g FROM generate_series(1, ${rows}) g`);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, rss());
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
rmSync(dataDir, { recursive: true, force: true });

const above = (peak - idle) / MiB;
console.log(
  JSON.stringify({
    status: res.status,
    rows: res.body.rows,
    seconds: Number(seconds.toFixed(2)),
    idle_rss_mib: Number((idle / MiB).toFixed(1)),
    peak_rss_mib: Number((peak / MiB).toFixed(1)),
    peak_above_idle_mib: Number(above.toFixed(1)),
    target_mib: 200,
  }),
);
process.exitCode = res.body.rows === rows && above < 200 ? 0 : 1;
