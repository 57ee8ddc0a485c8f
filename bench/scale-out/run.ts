/**
 * The gateway's own overhead, and what a second worker process buys: autocannon (50 connections) against a bare
 * Fastify server and against `sqlgate serve` with SQLGATE_WORKERS=1 and 2 in the same run, on a PostgreSQL
 * state store (schema `scaleout_bench_…`, dropped after) and Redis (rate limit; keys under a prefix of this
 * run, deleted after). Routes: GET /warehouses (auth + rate limit only), GET /cost of SELECT 1, GET /cost of a
 * one-table TPC-H aggregate (the same text every time: the prepare cache), POST /query of SELECT 1 (local
 * mode, DuckDB). Prints a Markdown table: requests/s, p50, p99, non-2xx, and the ratio to bare Fastify with
 * as many processes.
 *
 *   SQLGATE_TEST_POSTGRES_URL=… SQLGATE_TEST_REDIS_URL=… node_modules/.bin/node bench/scale-out/run.ts [seconds=10]
 *     [--workers=1,2] [--routes=warehouses,cost1,costagg,query,body,memory,duckdb] [--baseline=<checkout>]
 *     [--ports=56570]
 *
 * Without options every route runs with 1 and then 2 workers. `--routes` runs only the routes named (bare
 * Fastify always runs); `--baseline` also runs the gateway routes of another checkout of sqlgate (a directory
 * with bin/sqlgate.js and node_modules, e.g. `git archive main` unpacked), in the same run, rows marked
 * "(baseline)": before/after figures that shared the machine's state.
 *
 * Ports 56570–56573 unless `--ports` gives another first one.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { NODE, ROOT, runCli, startGatewayProcess } from '../../test/helpers/process.ts';
import type { GatewayProcess } from '../../test/helpers/process.ts';
import { adminQuery } from '../../test/support/pg-schema.ts';

type Result = {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
};
type Options = {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
};
const autocannon = createRequire(import.meta.url)('autocannon') as (o: Options) => Promise<Result>;

const args = process.argv.slice(2);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const seconds = Number(args.find((a) => !a.startsWith('--')) ?? 10);
const WORKERS = (option('workers') ?? '1,2').split(',').map(Number);
const ROUTES = new Set((option('routes') ?? 'warehouses,cost1,costagg,query,body,memory,duckdb').split(','));
const BASELINE = option('baseline');
const wants = (route: string): boolean => ROUTES.has(route);
const PG = process.env.SQLGATE_TEST_POSTGRES_URL;
const REDIS = process.env.SQLGATE_TEST_REDIS_URL;
if (PG === undefined || REDIS === undefined) {
  process.stderr.write('set SQLGATE_TEST_POSTGRES_URL and SQLGATE_TEST_REDIS_URL\n');
  process.exit(2);
}
const PORT0 = Number(option('ports') ?? 56_570);
const PORT = { bare1: PORT0, bare2: PORT0 + 1, gw1: PORT0 + 2, gw2: PORT0 + 3 };
const AGGREGATE =
  'SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, ' +
  'avg(l_discount) AS avg_disc, count(*) AS count_order FROM lineitem ' +
  "WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus";

/** `sqlgate serve` of the checkout at `root` (this one, or `--baseline`'s). */
const startGatewayAt = (root: string, env: Record<string, string>): Promise<GatewayProcess> => {
  if (root === ROOT) return startGatewayProcess(env);
  return new Promise((resolve, reject) => {
    const proc = spawn(NODE, [join(root, 'bin/sqlgate.js'), 'serve'], {
      cwd: root,
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SQLGATE_'))),
        ...env,
      },
    });
    let out = '';
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    const onData = (c: Buffer): void => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve({ url: m[1], proc, output: () => out, exited });
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`baseline gateway exited ${String(code)}:\n${out}`)));
  });
};

const startBare = (port: number, workers: number, bodyFile?: string): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const p = spawn(
      NODE,
      [`${ROOT}bench/scale-out/bare.ts`, String(port), String(workers), ...(bodyFile ? [bodyFile] : [])],
      { cwd: ROOT },
    );
    p.stdout.on('data', (c: Buffer) => c.toString().includes('listening') && resolve(p));
    p.once('exit', (code) => reject(new Error(`bare server exited ${String(code)}`)));
  });

const run = async (o: Omit<Options, 'connections' | 'duration'>): Promise<Result> => {
  await autocannon({ ...o, connections: 50, duration: 2 }); // warm-up: JIT, caches, pools
  return autocannon({ ...o, connections: 50, duration: seconds });
};

type Row = { target: string; workers: number; r: Result };
const rows: Row[] = [];

const main = async (): Promise<void> => {
  const startLoad = loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
  const id = randomBytes(4).toString('hex');
  const schema = `scaleout_bench_${id}`;
  const prefix = `sqlgate-bench-scaleout-${id}:`;
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-bench-scaleout-'));
  const sep = PG.includes('?') ? '&' : '?';
  const env = (port: number, workers: number): Record<string, string> => ({
    SQLGATE_DATA_DIR: dataDir,
    SQLGATE_PORT: String(port),
    SQLGATE_DATABASE_URL: `${PG}${sep}options=-c%20search_path%3D${schema}`,
    SQLGATE_REDIS_URL: REDIS,
    SQLGATE_REDIS_KEY_PREFIX: prefix,
    SQLGATE_WORKERS: String(workers),
    SQLGATE_LOG_LEVEL: 'warn',
    SQLGATE_RATE_LIMIT_PER_MINUTE: '10000000',
    SQLGATE_MAX_CONCURRENT_PER_ACCOUNT: '1000',
    SQLGATE_DEMO_SCALE: '0.1',
  });
  await adminQuery(PG, `CREATE SCHEMA ${schema}`);
  const children: ChildProcess[] = [];
  try {
    const key = (
      await runCli(['keys', 'create', '--account', 'bench@scaleout.test'], env(PORT.gw1, 1))
    ).trim();
    const auth = { authorization: `Bearer ${key}` };
    for (const workers of WORKERS) {
      const bare = await startBare(workers === 1 ? PORT.bare1 : PORT.bare2, workers);
      children.push(bare);
      rows.push({
        target: 'bare Fastify',
        workers,
        r: await run({ url: `http://127.0.0.1:${workers === 1 ? PORT.bare1 : PORT.bare2}/` }),
      });
      bare.kill('SIGTERM');
      await new Promise((r) => bare.once('exit', r));
      let listing: ArrayBuffer | undefined;
      // The baseline checkout first (when given), then this one: the same routes, one after the other.
      for (const root of BASELINE === undefined ? [ROOT] : [BASELINE, ROOT]) {
        const mark = root === ROOT ? '' : ' (baseline)';
        const gw = await startGatewayAt(root, env(workers === 1 ? PORT.gw1 : PORT.gw2, workers));
        children.push(gw.proc);
        // Every worker up (the banner comes from the first): wait for a few answers on fresh connections.
        await new Promise((r) => setTimeout(r, workers > 1 ? 8_000 : 1_000));
        const base = gw.url;
        if (wants('warehouses'))
          rows.push({
            target: `GET /warehouses${mark}`,
            workers,
            r: await run({ url: `${base}/warehouses`, headers: auth }),
          });
        if (wants('cost1'))
          rows.push({
            target: `GET /cost SELECT 1${mark}`,
            workers,
            r: await run({ url: `${base}/cost?query=${encodeURIComponent('SELECT 1')}`, headers: auth }),
          });
        if (wants('costagg'))
          rows.push({
            target: `GET /cost TPC-H aggregate (repeated)${mark}`,
            workers,
            r: await run({ url: `${base}/cost?query=${encodeURIComponent(AGGREGATE)}`, headers: auth }),
          });
        if (wants('query'))
          rows.push({
            target: `POST /query SELECT 1 (local)${mark}`,
            workers,
            r: await run({
              url: `${base}/query`,
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({ query: 'SELECT 1' }),
            }),
          });
        // The listing GET /warehouses answers, for a bare Fastify route answering the same bytes.
        if (root === ROOT)
          listing = await fetch(`${base}/warehouses`, { headers: auth }).then((r) => r.arrayBuffer());
        gw.proc.kill('SIGTERM');
        await gw.exited;
      }
      if (wants('body') && listing !== undefined) {
        const bodyFile = join(dataDir, 'listing.json');
        writeFileSync(bodyFile, Buffer.from(listing));
        const bareBody = await startBare(workers === 1 ? PORT.bare1 : PORT.bare2, workers, bodyFile);
        children.push(bareBody);
        rows.push({
          target: `bare Fastify, the same ${listing.byteLength}-byte body as GET /warehouses`,
          workers,
          r: await run({ url: `http://127.0.0.1:${workers === 1 ? PORT.bare1 : PORT.bare2}/body` }),
        });
        bareBody.kill('SIGTERM');
        await new Promise((r) => bareBody.once('exit', r));
      }
      // The same gateway with the rate limit in process memory: what the Redis round trip per request costs.
      if (wants('memory')) {
        const { SQLGATE_REDIS_URL: _redis, ...noRedis } = env(workers === 1 ? PORT.gw1 : PORT.gw2, workers);
        const mem = await startGatewayProcess(noRedis);
        children.push(mem.proc);
        await new Promise((r) => setTimeout(r, workers > 1 ? 8_000 : 1_000));
        rows.push({
          target: 'GET /warehouses, rate limit in memory (no Redis)',
          workers,
          r: await run({ url: `${mem.url}/warehouses`, headers: auth }),
        });
        mem.proc.kill('SIGTERM');
        await mem.exited;
      }
      // POST /query's baseline: SELECT 1 through the DuckDB node API alone, as the local warehouse runs it.
      if (!wants('duckdb')) continue;
      const duck = await new Promise<{ rps: number; p50: number; p99: number }>((resolve, reject) => {
        const p = spawn(
          NODE,
          [
            `${ROOT}bench/scale-out/duckdb.ts`,
            join(dataDir, 'demo.duckdb'),
            String(seconds),
            String(workers),
          ],
          { cwd: ROOT },
        );
        let out = '';
        p.stdout.on('data', (c: Buffer) => (out += c.toString()));
        p.once('exit', (code) =>
          code === 0
            ? resolve(JSON.parse(out) as never)
            : reject(new Error(`duckdb.ts exited ${String(code)}`)),
        );
      });
      rows.push({
        target: 'DuckDB alone, SELECT 1 (node API, 4 connections, 50 callers)',
        workers,
        r: {
          requests: { average: duck.rps },
          latency: { p50: duck.p50, p99: duck.p99 },
          non2xx: 0,
          errors: 0,
          timeouts: 0,
        },
      });
    }
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await adminQuery(PG, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    const r = new Redis(REDIS);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length > 0) await r.del(...keys);
    r.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const bare = (w: number) =>
    rows.find((x) => x.target === 'bare Fastify' && x.workers === w)!.r.requests.average;
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(
    `\n${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`,
  );
  out(
    `load average at the start: ${startLoad}; at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}; ${seconds} s per route, 50 connections\n`,
  );
  const duck = (w: number) =>
    rows.find((x) => x.target.startsWith('DuckDB alone') && x.workers === w)?.r.requests.average;
  const ofDuck = (target: string, rps: number, w: number): string => {
    const d = duck(w);
    return target.startsWith('POST /query') && d !== undefined ? `${((100 * rps) / d).toFixed(1)} %` : '';
  };
  out('| route | workers | req/s | p50 ms | p99 ms | non-2xx | of bare Fastify | of DuckDB alone |');
  out('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const { target, workers, r } of rows)
    out(
      `| ${target} | ${workers} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx + r.errors + r.timeouts} | ${target.startsWith('DuckDB') ? '' : `${((100 * r.requests.average) / bare(workers)).toFixed(1)} %`} | ${ofDuck(target, r.requests.average, workers)} |`,
    );
};

await main();
