/**
 * Does one heavy query stall everyone? Starts `sqlgate serve` in a child process, polls GET /healthz every
 * few ms from this process, and sends 1 MiB queries (a long IN list, a long OR chain) to POST /query and
 * GET /cost. Reports /healthz latency while no query runs (the baseline, measured in the same run) and while
 * each heavy request is in flight: p50, p99, max, and the ratio of that max to the baseline p99.
 *
 *   node_modules/.bin/node bench/healthz-stall/run.ts [rounds=3]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { NODE, ROOT, runCli, startGatewayProcess } from '../../test/helpers/process.ts';

const rounds = Number(process.argv[2] ?? 3);
const MIB = 1024 * 1024;

/** The largest text below `limit` bytes made of `head` and items joined by `sep`. */
const fill = (
  head: string,
  tail: string,
  sep: string,
  item: (i: number) => string,
  limit: number,
): string => {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 1; ; i++) {
    const s = item(i);
    if (size + s.length + sep.length >= limit) break;
    parts.push(s);
    size += s.length + sep.length;
  }
  return `${head}${parts.join(sep)}${tail}`;
};

const QUERIES: Record<string, string> = {
  'IN list': fill('SELECT count(*) FROM lineitem WHERE l_orderkey IN (', ')', ', ', String, MIB - 64),
  'OR chain': fill('SELECT count(*) FROM lineitem WHERE ', '', ' OR ', (i) => `l_orderkey = ${i}`, MIB - 64),
};

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const fmt = (n: number): string => n.toFixed(1);

/** Polls /healthz back to back (with `gapMs` between) until `stop()`; returns every latency in ms. */
const poll = (base: string, gapMs: number) => {
  const latencies: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const t = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, gapMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return latencies;
    },
  };
};

const main = async (): Promise<void> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-bench-stall-'));
  // The size caps (SQLGATE_MAX_QUERY_TOKENS, SQLGATE_MAX_LIST_ITEMS) would refuse these queries before parsing:
  // they are lifted so that the whole parse, rewrite and translation happens (in the SQL workers, since the pool).
  const env = {
    SQLGATE_DATA_DIR: dataDir,
    SQLGATE_DEMO_SCALE: '0.05',
    SQLGATE_LOG_LEVEL: 'silent',
    SQLGATE_RATE_LIMIT_PER_MINUTE: '100000',
    SQLGATE_MAX_QUERY_TOKENS: '100000000',
    SQLGATE_MAX_LIST_ITEMS: '100000000',
    SQLGATE_PARSE_TIMEOUT_MS: '60000',
    ...(process.env.SQLGATE_STATEMENT_TIMEOUT_MS
      ? { SQLGATE_STATEMENT_TIMEOUT_MS: process.env.SQLGATE_STATEMENT_TIMEOUT_MS }
      : {}),
  };
  const key = (await runCli(['keys', 'create', '--account', 'bench@example.com'], env)).trim();
  const gw = await startGatewayProcess(env);
  const auth = { authorization: `Bearer ${key}` };
  let commit = 'unknown (not a git checkout)';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: 'pipe' })
      .toString()
      .trim();
  } catch {
    // an exported tree, e.g. an older commit checked out elsewhere for a before/after comparison
  }
  console.log(`commit ${commit}, node ${NODE}, load average ${loadavg().map(fmt).join(' ')}`);
  for (const [name, q] of Object.entries(QUERIES)) console.log(`${name}: ${q.length} bytes`);
  try {
    // Warm up: the first query compiles the SQL library's code paths.
    await fetch(`${gw.url}/query`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT count(*) FROM nation' }),
    });
    const rows: string[] = [];
    for (let r = 0; r < rounds; r++) {
      const idle = poll(gw.url, 2);
      await new Promise((res) => setTimeout(res, 1500));
      const base = await idle.stop();
      const baseP99 = quantile(base, 0.99);
      rows.push(
        `| ${r + 1} | baseline (no query) | — | ${fmt(quantile(base, 0.5))} | ${fmt(baseP99)} | ${fmt(Math.max(...base))} | 1.0 |`,
      );
      for (const [name, sql] of Object.entries(QUERIES)) {
        for (const route of ['POST /query', 'GET /cost'] as const) {
          const p = poll(gw.url, 2);
          await new Promise((res) => setTimeout(res, 100));
          const t = performance.now();
          const res =
            route === 'POST /query'
              ? await fetch(`${gw.url}/query`, {
                  method: 'POST',
                  headers: { ...auth, 'content-type': 'application/json' },
                  body: JSON.stringify({ query: sql }),
                })
              : await fetch(`${gw.url}/cost?query=${encodeURIComponent(sql)}`, { headers: auth });
          const body = (await res.json()) as Record<string, unknown>;
          const took = performance.now() - t;
          const lat = await p.stop();
          const mx = Math.max(...lat);
          const outcome = `${res.status}${typeof body.code === 'string' ? ` ${body.code}` : ''}, ${fmt(took)} ms`;
          rows.push(
            `| ${r + 1} | ${route}, ${name} | ${outcome} | ${fmt(quantile(lat, 0.5))} | ${fmt(quantile(lat, 0.99))} | ${fmt(mx)} | ${fmt(mx / baseP99)} |`,
          );
        }
      }
    }
    // What the hop to a worker thread costs an ordinary query: sequential GET /cost and POST /query, small query.
    const small =
      "SELECT o_orderpriority, count(*) FROM orders WHERE o_orderdate >= DATE '1995-01-01' GROUP BY 1";
    const lat: Record<string, number[]> = { 'GET /cost': [], 'POST /query': [] };
    for (let i = 0; i < 400; i++) {
      const t = performance.now();
      const res =
        i % 2 === 0
          ? await fetch(`${gw.url}/cost?query=${encodeURIComponent(small)}`, { headers: auth })
          : await fetch(`${gw.url}/query`, {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({ query: small }),
            });
      await res.arrayBuffer();
      if (i >= 40) lat[i % 2 === 0 ? 'GET /cost' : 'POST /query']?.push(performance.now() - t);
    }
    console.log('\n| small query, sequential (180 each after warm-up) | p50 ms | p99 ms |');
    console.log('|---|---:|---:|');
    for (const [route, xs] of Object.entries(lat))
      console.log(`| ${route} | ${fmt(quantile(xs, 0.5))} | ${fmt(quantile(xs, 0.99))} |`);
    console.log(
      '\n| round | during | heavy request (status, time) | healthz p50 ms | p99 ms | max ms | max / baseline p99 |',
    );
    console.log('|---|---|---|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    gw.proc.kill('SIGTERM');
    await gw.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
};

await main();
