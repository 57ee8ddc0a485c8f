/**
 * A CPU profile of `sqlgate serve` (1 process) under autocannon POST /query of SELECT 1 (local mode), with the
 * scale-out bench's settings (PostgreSQL store in a schema of its own, Redis rate limit): writes the
 * `.cpuprofile` to the directory given and prints the requests/s; sum it with cpuprofile-summary.ts.
 * `--route=` profiles another route instead: `warehouses`, `lean` (GET /warehouses?include=none), `cost1`
 * (GET /cost of SELECT 1), `costagg` (GET /cost of a one-table aggregate, the same text every time).
 * `--no-profile`: only the requests/s and CPU per request, without the profiler's own cost.
 *
 *   SQLGATE_TEST_POSTGRES_URL=… SQLGATE_TEST_REDIS_URL=… node bench/scale-out/profile-query.ts <out-dir>
 *     [seconds=10] [--port=27120] [--prefix=hotq2_prof] [--route=query] [--no-profile]
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NODE, ROOT, runCli } from '../../test/helpers/process.ts';
import { adminQuery } from '../../test/support/pg-schema.ts';
import { dropDeployment } from './deployment.ts';
import { byThreadName, postgresTicks, processTicks, threadTicks } from './proc-cpu.ts';

const autocannon = createRequire(import.meta.url)('autocannon') as (o: object) => Promise<{
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}>;
const args = process.argv.slice(2);
const positional = args.filter((a) => !a.startsWith('--'));
const outDir = resolve(positional[0] ?? 'cpuprof');
const seconds = Number(positional[1] ?? 10);
const port = Number(args.find((a) => a.startsWith('--port='))?.slice(7) ?? 27_120);
const route = args.find((a) => a.startsWith('--route='))?.slice(8) ?? 'query';
const prefixArg = args.find((a) => a.startsWith('--prefix='))?.slice(9) ?? 'hotq2_prof';
const PG = process.env.SQLGATE_TEST_POSTGRES_URL;
const REDIS = process.env.SQLGATE_TEST_REDIS_URL;
if (PG === undefined || REDIS === undefined) {
  process.stderr.write('set SQLGATE_TEST_POSTGRES_URL and SQLGATE_TEST_REDIS_URL\n');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const id = randomBytes(4).toString('hex');
const schema = `${prefixArg}_${id}`;
const prefix = `${prefixArg}_${id}:`;
const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-profile-query-'));
const sep = PG.includes('?') ? '&' : '?';
const env: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SQLGATE_'))),
  SQLGATE_DATA_DIR: dataDir,
  SQLGATE_PORT: String(port),
  SQLGATE_DATABASE_URL: `${PG}${sep}options=-c%20search_path%3D${schema}`,
  SQLGATE_REDIS_URL: REDIS,
  SQLGATE_REDIS_KEY_PREFIX: prefix,
  SQLGATE_WORKERS: '1',
  SQLGATE_LOG_LEVEL: 'warn',
  SQLGATE_RATE_LIMIT_PER_MINUTE: '10000000',
  SQLGATE_MAX_CONCURRENT_PER_ACCOUNT: '1000',
  SQLGATE_DEMO_SCALE: '0.1',
};
await adminQuery(PG, `CREATE SCHEMA ${schema}`);
try {
  const key = (await runCli(['keys', 'create', '--account', 'bench@profile.test'], env)).trim();
  const proc = spawn(
    NODE,
    [
      ...(args.includes('--no-profile') ? [] : ['--cpu-prof', `--cpu-prof-dir=${outDir}`]),
      `${ROOT}bin/sqlgate.js`,
      'serve',
    ],
    {
      env,
      cwd: ROOT,
    },
  );
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  await new Promise<void>((ok, fail) => {
    let out = '';
    const on = (c: Buffer): void => {
      out += c.toString();
      if (out.includes('listening on')) ok();
    };
    proc.stdout.on('data', on);
    proc.stderr.on('data', on);
    proc.once('exit', () => fail(new Error(`gateway exited:\n${out}`)));
  });
  const auth = { authorization: `Bearer ${key}` };
  const base = `http://127.0.0.1:${port}`;
  const AGGREGATE =
    'SELECT l_returnflag, sum(l_quantity) AS sum_qty, count(*) AS count_order FROM lineitem ' +
    "WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag ORDER BY l_returnflag";
  const routes: Record<string, object> = {
    query: {
      url: `${base}/query`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT 1' }),
    },
    warehouses: { url: `${base}/warehouses`, headers: auth },
    lean: { url: `${base}/warehouses?include=none`, headers: auth },
    cost1: { url: `${base}/cost?query=${encodeURIComponent('SELECT 1')}`, headers: auth },
    costagg: { url: `${base}/cost?query=${encodeURIComponent(AGGREGATE)}`, headers: auth },
  };
  const o = { ...routes[route], connections: 50 };
  if (routes[route] === undefined) throw new Error(`--route: one of ${Object.keys(routes).join(', ')}`);
  await autocannon({ ...o, duration: 2 });
  // CPU time (utime + stime, clock ticks of 10 ms) of the whole process and of its main thread, from /proc.
  const pid = proc.pid!;
  const cpu = (): [number, number] => processTicks(pid);
  const threads = (): Map<string, number> => threadTicks(pid);
  const postgres = postgresTicks;
  const [p0, m0] = cpu();
  const t0 = threads();
  const pg0 = postgres();
  const r = await autocannon({ ...o, duration: seconds });
  const [p1, m1] = cpu();
  const t1 = threads();
  const pg1 = postgres();
  const n = r.requests.average * seconds;
  const us = (t: number): string => ((t * 10_000) / n).toFixed(0);
  process.stdout.write(
    `${route}: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}; CPU per request: process ${us(p1 - p0)} µs, main thread ${us(m1 - m0)} µs; every PostgreSQL process ${us(pg1 - pg0)} µs\n`,
  );
  const byName = byThreadName(t0, t1);
  process.stdout.write(
    `  by thread (µs per request): ${[...byName]
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${us(v)}`)
      .join(', ')}\n`,
  );
  proc.kill('SIGTERM');
  await exited;
} finally {
  await dropDeployment({ pg: PG, redis: REDIS, schema, prefix, dataDir });
}
