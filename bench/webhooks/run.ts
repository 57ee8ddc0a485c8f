/**
 * Webhook load benchmark: (1) events per second the dispatcher delivers to a local receiver, and (2) the
 * latency POST /query adds when the account has 10 endpoints configured versus none.
 *
 *   node_modules/.bin/node bench/webhooks/run.ts [events=2000] [queries=300] [rate=40]
 *
 * SQLGATE_DATABASE_URL (optional) runs it on a PostgreSQL state store instead of the embedded one.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { fork } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { closeServices, createServices } from '../../src/runtime.ts';
import { SAMPLE_QUERY_RESULT, queryCompletedPayload } from '../../src/services/webhooks.ts';
import { enqueueEvent } from '../../src/store/webhook-deliveries.ts';

const EVENTS = Number(process.argv[2] ?? 2000);
const QUERIES = Number(process.argv[3] ?? 300);
/** Queries per second of the open-loop phase (4). */
const RATE = Number(process.argv[4] ?? 40);
const dir = mkdtempSync(join(tmpdir(), 'sqlgate-bench-'));
const config = loadConfig({
  SQLGATE_DATA_DIR: dir,
  SQLGATE_DEMO_SCALE: '0.002',
  SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  SQLGATE_LOG_LEVEL: 'silent',
  SQLGATE_RATE_LIMIT_PER_MINUTE: '1000000',
  SQLGATE_MAX_CONCURRENT_PER_ACCOUNT: '1000',
  ...(process.env.SQLGATE_DATABASE_URL ? { SQLGATE_DATABASE_URL: process.env.SQLGATE_DATABASE_URL } : {}),
});
const services = await createServices(config, { progress: () => {}, metrics: false });
const app = await buildApp(config, services, { logger: false });
const base = await app.listen({ host: '127.0.0.1', port: 0 });

const child = fork(join(import.meta.dirname, 'receiver.ts'), [], { execPath: process.execPath });
const port = await new Promise<number>((resolve) =>
  child.once('message', (m) => resolve((m as { port: number }).port)),
);
const hook = `http://127.0.0.1:${port}/hook`;
let received = 0;
child.on('message', (m) => {
  const r = (m as { received?: number }).received;
  if (r !== undefined) received = r;
});
/** Waits until the receiver has counted at least `n` requests. */
const receivedAtLeast = async (n: number, timeoutMs = 120_000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (received < n && Date.now() < until) {
    child.send('count');
    await new Promise((r) => setTimeout(r, 10));
  }
};

const quiet = await services.keys.create({ accountEmail: 'none@bench.local' });
const busy = await services.keys.create({ accountEmail: 'ten@bench.local' });
for (let i = 0; i < 10; i++)
  await services.webhooks.createEndpoint(busy.record.accountId, { url: `${hook}?n=${i}` });

// (1) Throughput: fill the outbox (one endpoint), then time the dispatcher draining it.
const one = await services.keys.create({ accountEmail: 'one@bench.local' });
await services.webhooks.createEndpoint(one.record.accountId, { url: hook });
const sample = SAMPLE_QUERY_RESULT;
for (let i = 0; i < EVENTS; i += 100)
  await services.db.transaction(async (tx) => {
    for (let j = i; j < Math.min(EVENTS, i + 100); j++)
      await enqueueEvent(tx, {
        id: `msg_bench${j}`,
        accountId: one.record.accountId,
        type: 'query.completed',
        payload: queryCompletedPayload(sample, new Date()),
        queryLogId: null,
      });
  });
/** CPU time (ms) used so far by each thread of this process, by thread name, plus the receiver's. */
const cpuByThread = (): Map<string, number> => {
  const tick = 10; // USER_HZ = 100 on Linux
  const out = new Map<string, number>();
  const add = (name: string, statPath: string): void => {
    try {
      const stat = readFileSync(statPath, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * tick);
    } catch {
      // a thread that ended meanwhile
    }
  };
  for (const tid of readdirSync('/proc/self/task')) {
    const comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    add(
      comm === 'MainThread'
        ? 'main'
        : comm.startsWith('WorkerThr')
          ? `worker ${tid}`
          : 'V8 and libuv helpers',
      `/proc/self/task/${tid}/stat`,
    );
  }
  add('receiver (other process)', `/proc/${child.pid}/stat`);
  return out;
};
const cpuBefore = cpuByThread();
const t0 = performance.now();
services.webhookDispatcher.start();
await receivedAtLeast(EVENTS);
const drainS = (performance.now() - t0) / 1000;
const cpuAfter = cpuByThread();
const cpuPerEvent = [...cpuAfter]
  .map(([name, ms]) => [name, (ms - (cpuBefore.get(name) ?? 0)) / EVENTS] as const)
  .filter(([, ms]) => ms > 0)
  .map(([name, ms]) => `${name} ${(ms * 1000).toFixed(0)} µs`)
  .join(', ');

// (2) POST /query latency, 0 vs 10 endpoints. Alternating blocks (not single queries): the deliveries a
// 10-endpoint query causes run after its response, so they would otherwise be charged to the next query.
const timeQuery = async (key: string, i: number): Promise<number> => {
  const t = performance.now();
  const r = await fetch(`${base}/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: `SELECT ${i} AS i, count(*) FROM orders` }),
  });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`POST /query ${r.status}`);
  return performance.now() - t;
};
for (let i = 0; i < 30; i++) await timeQuery(quiet.key, i); // warm-up
const zero: number[] = [];
const ten: number[] = [];
const BLOCK = 50;
/**
 * Runs `rounds` pairs of blocks in ABBA order (0 then 10 endpoints, then 10 then 0, …), so that neither
 * account always comes first after a pause: that order alone moved the p50 by ±0.3 ms here.
 */
const abba = async (rounds: number, block: (ten: boolean) => Promise<void>): Promise<void> => {
  for (let r = 0; r < rounds; r++) {
    for (const ten of r % 2 === 0 ? [false, true] : [true, false]) await block(ten);
  }
};
await abba(Math.ceil(QUERIES / BLOCK), async (toTen) => {
  for (let i = 0; i < BLOCK; i++) (toTen ? ten : zero).push(await timeQuery(toTen ? busy.key : quiet.key, i));
  // Let the block's deliveries finish so that each block starts from an idle dispatcher.
  await receivedAtLeast(EVENTS + 10 * ten.length);
});
// (4) Open loop: a client in another process sends POST /query at a fixed rate, alternating blocks of
// one second by the account with no endpoint and by the one with 10 (each block's deliveries drained
// before the next block starts, as above).
const client = fork(join(import.meta.dirname, 'client.ts'), [], { execPath: process.execPath });
await new Promise((resolve) => client.once('message', resolve));
const openLoop = (key: string): Promise<number[]> =>
  new Promise((resolve, reject) => {
    client.once('message', (m: { latencies?: number[]; error?: string }) =>
      m.latencies ? resolve(m.latencies) : reject(new Error(m.error)),
    );
    client.send({ base, key, count: RATE, rate: RATE });
  });
await openLoop(quiet.key); // warm-up
const openZero: number[] = [];
const openTen: number[] = [];
await abba(Math.ceil(QUERIES / RATE), async (toTen) => {
  (toTen ? openTen : openZero).push(...(await openLoop(toTen ? busy.key : quiet.key)));
  await receivedAtLeast(EVENTS + 10 * (ten.length + openTen.length));
});

// (3) The request path alone: 10 endpoints with the dispatcher stopped (only the outbox insert remains).
await services.webhookDispatcher.stop();
const queued: number[] = [];
for (let i = 0; i < QUERIES; i++) queued.push(await timeQuery(busy.key, i));
// (5) The same open loop as (4) with the dispatcher stopped: what the outbox insert alone adds.
const openZeroStopped: number[] = [];
const openTenStopped: number[] = [];
await abba(Math.ceil(QUERIES / RATE), async (toTen) => {
  (toTen ? openTenStopped : openZeroStopped).push(...(await openLoop(toTen ? busy.key : quiet.key)));
});
client.send('stop');
const quantile = (xs: readonly number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
const pct = (xs: number[], p: number): string => quantile(xs, p).toFixed(2);
/**
 * The rise of the p50 from `a` to `b` with a 95% bootstrap interval (2,000 resamples of each side): a rise
 * (or fall) is measurable when the interval excludes 0.
 */
const p50Rise = (a: readonly number[], b: readonly number[]): string => {
  const resample = (xs: readonly number[]): number[] =>
    Array.from(xs, () => xs[Math.floor(Math.random() * xs.length)] ?? 0);
  const rises = Array.from(
    { length: 2000 },
    () => quantile(resample(b), 0.5) - quantile(resample(a), 0.5),
  ).sort((x, y) => x - y);
  const lo = rises[50] ?? 0;
  const hi = rises[1949] ?? 0;
  const verdict = lo > 0 ? 'measurable rise' : hi < 0 ? 'measurable fall' : 'not measurable';
  return `${(quantile(b, 0.5) - quantile(a, 0.5)).toFixed(2)} ms, 95% CI [${lo.toFixed(2)}, ${hi.toFixed(2)}]: ${verdict}`;
};
const expected = EVENTS + 10 * (ten.length + openTen.length);
await receivedAtLeast(expected, 60_000);

const store = config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite';
process.stdout.write(
  [
    `store: ${store}`,
    `delivery throughput: ${EVENTS} events in ${drainS.toFixed(2)} s = ${(EVENTS / drainS).toFixed(0)} events/s`,
    `  CPU per event (while draining): ${cpuPerEvent}`,
    `POST /query latency over ${QUERIES} queries each (ms):`,
    `   0 endpoints: p50 ${pct(zero, 0.5)}  p90 ${pct(zero, 0.9)}  p99 ${pct(zero, 0.99)}`,
    `  10 endpoints: p50 ${pct(ten, 0.5)}  p90 ${pct(ten, 0.9)}  p99 ${pct(ten, 0.99)}`,
    `  rise of p50 with 10 endpoints: ${p50Rise(zero, ten)}`,
    `POST /query latency, open loop at ${RATE}/s from another process, ${openZero.length} queries each (ms):`,
    `   0 endpoints: p50 ${pct(openZero, 0.5)}  p90 ${pct(openZero, 0.9)}  p99 ${pct(openZero, 0.99)}`,
    `  10 endpoints: p50 ${pct(openTen, 0.5)}  p90 ${pct(openTen, 0.9)}  p99 ${pct(openTen, 0.99)}`,
    `  rise of p50 with 10 endpoints: ${p50Rise(openZero, openTen)}`,
    `  10 endpoints, dispatcher stopped (outbox insert only): p50 ${pct(queued, 0.5)}  p90 ${pct(queued, 0.9)}  p99 ${pct(queued, 0.99)}`,
    `  open loop, dispatcher stopped (outbox insert only): rise of p50 with 10 endpoints: ${p50Rise(openZeroStopped, openTenStopped)}`,
    `deliveries from the latency runs: ${received - EVENTS} of ${expected - EVENTS}`,
    '',
  ].join('\n'),
);
await app.close();
await closeServices(services);
child.send('stop');
rmSync(dir, { recursive: true, force: true });
