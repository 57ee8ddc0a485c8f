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
 *     [--query-only] [--ports=26570] [--before=<dir>] [--workers=1,2] [--routes=<list>] [--baseline=<dir>]
 *
 * `--query-only`: only bare Fastify, POST /query and its DuckDB baselines (a shorter run). Ports: five from
 * `--ports` (default 26570–26574, below the ephemeral range). `--before=<dir>`: also POST /query on the gateway of another checkout of
 * this repository (its node_modules installed or linked), on the same store, data and key: before/after in one
 * run. `--workers=1`: only that many processes. `--routes=warehouses,lean,cost1,costagg,query,body,memory`: only
 * those (`lean`: GET /warehouses?include=none) (default all; bare Fastify and the DuckDB baselines always run). `--rounds=5`: each GET route alternates with bare Fastify
 * that many times (its seconds shared among them), and its ratio is the median of the rounds'. `--baseline=<dir>`: also the GET routes
 * selected on another checkout's gateway (rows marked "(baseline)"), the same way `--before` does POST /query.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { NODE, ROOT, runCli, startGatewayProcess } from '../../test/helpers/process.ts';
import { adminQuery } from '../../test/support/pg-schema.ts';
import { dropDeployment, startBare, startGatewayAt } from './deployment.ts';

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
const seconds = Number(args.find((a) => !a.startsWith('--')) ?? 10);
const queryOnly = args.includes('--query-only');
const portBase = Number(args.find((a) => a.startsWith('--ports='))?.slice('--ports='.length) ?? 26_570);
const PG = process.env.SQLGATE_TEST_POSTGRES_URL;
const REDIS = process.env.SQLGATE_TEST_REDIS_URL;
if (PG === undefined || REDIS === undefined) {
  process.stderr.write('set SQLGATE_TEST_POSTGRES_URL and SQLGATE_TEST_REDIS_URL\n');
  process.exit(2);
}
const before = args.find((a) => a.startsWith('--before='))?.slice('--before='.length);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const WORKERS = (option('workers') ?? '1,2').split(',').map(Number);
const ROUTES = new Set(
  (option('routes') ?? (queryOnly ? 'query' : 'warehouses,lean,cost1,costagg,query,body,memory')).split(','),
);
const wants = (route: string): boolean => ROUTES.has(route);
const baseline = option('baseline');
const ROUNDS = Number(option('rounds') ?? 5);
const PORT = {
  bare1: portBase,
  bare2: portBase + 1,
  gw1: portBase + 2,
  gw2: portBase + 3,
  body: portBase + 4,
};
const AGGREGATE =
  'SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, ' +
  'avg(l_discount) AS avg_disc, count(*) AS count_order FROM lineitem ' +
  "WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus";

const run = async (o: Omit<Options, 'connections' | 'duration'>): Promise<Result> => {
  await autocannon({ ...o, connections: 50, duration: 2 }); // warm-up: JIT, caches, pools
  return autocannon({ ...o, connections: 50, duration: seconds });
};

const DUCK = 'DuckDB alone, SELECT 1 (node API, 4 connections, 50 callers)';
const DUCK_PREPARED = 'DuckDB alone, SELECT 1 kept prepared per connection (4 connections, 50 callers)';

/**
 * GET routes: `bare`, bare Fastify's mean requests/s over the rounds alternated with this route's, and `ratio`,
 * the median of the rounds' route/bare ratios (against the machine's drift).
 */
type Row = { target: string; workers: number; r: Result; bare?: number; ratio?: number };
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
      const bareUrl = `http://127.0.0.1:${workers === 1 ? PORT.bare1 : PORT.bare2}/`;
      /** A GET route, right after bare Fastify again (a pair: the ratio does not ride the machine's drift). */
      const paired = async (target: string, o: Omit<Options, 'connections' | 'duration'>): Promise<Row> => {
        // Warm both, then `rounds` alternations of bare and route, each a share of the route's seconds: the
        // ratio is the median of the rounds' ratios; req/s and latencies are the route's over all rounds.
        await autocannon({ url: bareUrl, connections: 50, duration: 2 });
        await autocannon({ ...o, connections: 50, duration: 2 });
        const share = Math.max(1, Math.round(seconds / ROUNDS));
        const pairs: { bare: Result; route: Result }[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          const b = await autocannon({ url: bareUrl, connections: 50, duration: share });
          pairs.push({ bare: b, route: await autocannon({ ...o, connections: 50, duration: share }) });
        }
        const ratios = pairs
          .map((p) => p.route.requests.average / p.bare.requests.average)
          .sort((x, y) => x - y);
        const median = ratios[Math.floor(ratios.length / 2)]!;
        const mean = (f: (r: Result) => number) => pairs.reduce((t, p) => t + f(p.route), 0) / pairs.length;
        const r: Result = {
          requests: { average: mean((x) => x.requests.average) },
          latency: {
            p50: Math.max(...pairs.map((p) => p.route.latency.p50)),
            p99: Math.max(...pairs.map((p) => p.route.latency.p99)),
          },
          non2xx: pairs.reduce((t, p) => t + p.route.non2xx, 0),
          errors: pairs.reduce((t, p) => t + p.route.errors, 0),
          timeouts: pairs.reduce((t, p) => t + p.route.timeouts, 0),
        };
        const bareMean = pairs.reduce((t, p) => t + p.bare.requests.average, 0) / pairs.length;
        return { target, workers, r, bare: bareMean, ratio: median };
      };
      // The GET routes selected, on the other checkout's gateway first (`--baseline`), then on this one.
      const getRoutes = async (base: string, mark: string): Promise<void> => {
        if (wants('warehouses'))
          rows.push(await paired(`GET /warehouses${mark}`, { url: `${base}/warehouses`, headers: auth }));
        if (wants('lean'))
          rows.push(
            await paired(`GET /warehouses?include=none${mark}`, {
              url: `${base}/warehouses?include=none`,
              headers: auth,
            }),
          );
        if (wants('cost1'))
          rows.push(
            await paired(`GET /cost SELECT 1${mark}`, {
              url: `${base}/cost?query=${encodeURIComponent('SELECT 1')}`,
              headers: auth,
            }),
          );
        if (wants('costagg'))
          rows.push(
            await paired(`GET /cost TPC-H aggregate (repeated)${mark}`, {
              url: `${base}/cost?query=${encodeURIComponent(AGGREGATE)}`,
              headers: auth,
            }),
          );
      };
      if (baseline !== undefined) {
        const old = await startGatewayAt(baseline, env(workers === 1 ? PORT.gw1 : PORT.gw2, workers));
        children.push(old.proc);
        await new Promise((r) => setTimeout(r, workers > 1 ? 8_000 : 1_000));
        await getRoutes(old.url, ' (baseline)');
        old.proc.kill('SIGTERM');
        await old.exited;
      }
      const gw = await startGatewayProcess(env(workers === 1 ? PORT.gw1 : PORT.gw2, workers));
      children.push(gw.proc);
      // Every worker up (the banner comes from the first): wait for a few answers on fresh connections.
      await new Promise((r) => setTimeout(r, workers > 1 ? 8_000 : 1_000));
      const base = gw.url;
      // The listing GET /warehouses answers, for a bare Fastify route answering the same bytes.
      const listing = await fetch(`${base}/warehouses`, { headers: auth }).then((r) => r.arrayBuffer());
      await getRoutes(base, '');
      if (wants('query'))
        rows.push({
          target: 'POST /query SELECT 1 (local)',
          workers,
          r: await run({
            url: `${base}/query`,
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ query: 'SELECT 1' }),
          }),
        });
      gw.proc.kill('SIGTERM');
      await gw.exited;
      if (before !== undefined && wants('query')) {
        // The same route on the other checkout's gateway, on the same port, store, data and key.
        const old = await startGatewayAt(before, env(workers === 1 ? PORT.gw1 : PORT.gw2, workers));
        children.push(old.proc);
        await new Promise((r) => setTimeout(r, workers > 1 ? 8_000 : 1_000));
        rows.push({
          target: `POST /query SELECT 1 (local), before: ${before}`,
          workers,
          r: await run({
            url: `${old.url}/query`,
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ query: 'SELECT 1' }),
          }),
        });
        old.proc.kill('SIGTERM');
        await old.exited;
      }
      if (wants('body')) {
        const bodyFile = join(dataDir, 'listing.json');
        writeFileSync(bodyFile, Buffer.from(listing));
        const bareBody = await startBare(PORT.body, workers, bodyFile);
        children.push(bareBody);
        // Alternated with bare Fastify's usual route too (since run 12): what the listing's bytes alone cost.
        rows.push(
          await paired(`bare Fastify, the same ${listing.byteLength}-byte body as GET /warehouses`, {
            url: `http://127.0.0.1:${PORT.body}/body`,
          }),
        );
        bareBody.kill('SIGTERM');
        await new Promise((r) => bareBody.once('exit', r));
      }
      if (wants('memory')) {
        // The same gateway with the rate limit in process memory: what the Redis round trip per request costs.
        const { SQLGATE_REDIS_URL: _redis, ...noRedis } = env(workers === 1 ? PORT.gw1 : PORT.gw2, workers);
        const mem = await startGatewayProcess(noRedis);
        children.push(mem.proc);
        await new Promise((r) => setTimeout(r, workers > 1 ? 8_000 : 1_000));
        rows.push(
          await paired('GET /warehouses, rate limit in memory (no Redis)', {
            url: `${mem.url}/warehouses`,
            headers: auth,
          }),
        );
        mem.proc.kill('SIGTERM');
        await mem.exited;
      }
      // POST /query's baselines: SELECT 1 through the DuckDB node API alone: as text each time (split, prepare,
      // stream), and kept prepared per connection, as the local warehouse runs a repeated statement since run 7.
      for (const mode of ['stream', 'prepared'] as const) {
        const duck = await new Promise<{ rps: number; p50: number; p99: number }>((resolve, reject) => {
          const p = spawn(
            NODE,
            [
              `${ROOT}bench/scale-out/duckdb.ts`,
              join(dataDir, 'demo.duckdb'),
              String(seconds),
              String(workers),
              mode,
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
          target: `${mode === 'stream' ? DUCK : DUCK_PREPARED}`,
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
      bare.kill('SIGTERM');
      await new Promise((r) => bare.once('exit', r));
    }
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await dropDeployment({ pg: PG, redis: REDIS, schema, prefix, dataDir });
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
  const duck = (w: number, target: string) =>
    rows.find((x) => x.target === target && x.workers === w)!.r.requests.average;
  const ofDuck = (rps: number, w: number): string =>
    `${((100 * rps) / duck(w, DUCK)).toFixed(1)} % / ${((100 * rps) / duck(w, DUCK_PREPARED)).toFixed(1)} %`;
  out(
    '| route | workers | req/s | p50 ms | p99 ms | non-2xx | of bare Fastify | bare Fastify, alternated | of it (median of rounds) | of DuckDB alone (text / kept prepared) |',
  );
  out('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const { target, workers, r, bare: before, ratio } of rows)
    out(
      `| ${target} | ${workers} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx + r.errors + r.timeouts} | ${target.startsWith('DuckDB') ? '' : `${((100 * r.requests.average) / bare(workers)).toFixed(1)} %`} | ${before === undefined ? '' : Math.round(before)} | ${ratio === undefined ? '' : `${(100 * ratio).toFixed(1)} %`} | ${target.startsWith('POST /query') ? ofDuck(r.requests.average, workers) : ''} |`,
    );
};

await main();
