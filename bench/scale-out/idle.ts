/**
 * What an idle replica costs: the CPU of one `sqlgate serve` (PostgreSQL store and Redis, as run.ts deploys it)
 * that serves nothing, against a bare Fastify process idle beside it, measured over the same seconds after a
 * warm-up. `--before=<dir>`: also the gateway of another checkout (its node_modules installed or linked), idle
 * at the same time on a schema of its own, for a before/after in one run.
 *
 *   SQLGATE_TEST_POSTGRES_URL=… SQLGATE_TEST_REDIS_URL=… node bench/scale-out/idle.ts [seconds=30]
 *     [--warmup=10] [--ports=27140] [--before=<dir>]
 *
 * PostgreSQL's figure is every PostgreSQL process of the machine (a ceiling: other clients count too).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runCli } from '../../test/helpers/process.ts';
import { adminQuery } from '../../test/support/pg-schema.ts';
import { dropDeployment, startBare, startGatewayAt } from './deployment.ts';
import { byThreadName, postgresTicks, processTicks, threadTicks } from './proc-cpu.ts';

const args = process.argv.slice(2);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const seconds = Number(args.find((a) => !a.startsWith('--')) ?? 30);
const warmup = Number(option('warmup') ?? 10);
const portBase = Number(option('ports') ?? 27_140);
const before = option('before');
const PG = process.env.SQLGATE_TEST_POSTGRES_URL;
const REDIS = process.env.SQLGATE_TEST_REDIS_URL;
if (PG === undefined || REDIS === undefined) {
  process.stderr.write('set SQLGATE_TEST_POSTGRES_URL and SQLGATE_TEST_REDIS_URL\n');
  process.exit(2);
}

type Deployment = { pg: string; redis: string; schema: string; prefix: string; dataDir: string };
const deployment = async (label: string): Promise<Deployment> => {
  const id = randomBytes(4).toString('hex');
  const d = {
    pg: PG,
    redis: REDIS,
    schema: `scaleout_idle_${label}_${id}`,
    prefix: `sqlgate-bench-idle-${id}:`,
    dataDir: mkdtempSync(join(tmpdir(), 'sqlgate-bench-idle-')),
  };
  await adminQuery(PG, `CREATE SCHEMA ${d.schema}`);
  return d;
};
const envOf = (d: Deployment, port: number): Record<string, string> => ({
  SQLGATE_DATA_DIR: d.dataDir,
  SQLGATE_PORT: String(port),
  SQLGATE_DATABASE_URL: `${PG}${PG.includes('?') ? '&' : '?'}options=-c%20search_path%3D${d.schema}`,
  SQLGATE_REDIS_URL: REDIS,
  SQLGATE_REDIS_KEY_PREFIX: d.prefix,
  SQLGATE_LOG_LEVEL: 'warn',
  SQLGATE_DEMO_SCALE: '0.01',
});

const deployments: Deployment[] = [];
const stops: Array<() => Promise<void>> = [];
try {
  const bare = await startBare(portBase, 1);
  stops.push(async () => {
    const exited = new Promise((r) => bare.once('exit', r));
    bare.kill('SIGTERM');
    await exited;
  });
  const targets: Array<{ name: string; pid: number }> = [{ name: 'bare Fastify', pid: bare.pid! }];
  const checkouts = [{ name: 'sqlgate serve', dir: ROOT }];
  if (before !== undefined) checkouts.push({ name: `sqlgate serve, before: ${before}`, dir: before });
  for (const [i, c] of checkouts.entries()) {
    const d = await deployment(i === 0 ? 'now' : 'before');
    deployments.push(d);
    const env = envOf(d, portBase + 1 + i);
    // A key, as a deployment in use has: the key-change feed and caches are set up as they would be.
    await runCli(['keys', 'create', '--account', 'idle@scaleout.test'], env);
    const g = await startGatewayAt(c.dir, env);
    stops.push(async () => {
      g.proc.kill('SIGTERM');
      await g.exited;
    });
    targets.push({ name: c.name, pid: g.proc.pid! });
  }
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const t0 = targets.map((t) => ({ all: processTicks(t.pid)[0], threads: threadTicks(t.pid) }));
  const pg0 = postgresTicks();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const t1 = targets.map((t) => ({ all: processTicks(t.pid)[0], threads: threadTicks(t.pid) }));
  const pg1 = postgresTicks();
  // Clock ticks of 10 ms over `seconds`, as ms of CPU per minute.
  const perMinute = (ticks: number): number => Math.round((ticks * 10 * 60) / seconds);
  process.stdout.write(
    `idle for ${seconds} s after ${warmup} s; CPU in ms per minute (ticks of 10 ms: ±${perMinute(1)})\n\n` +
      '| process | ms CPU per minute | share of a core | by thread (ms per minute) |\n' +
      '| --- | --- | --- | --- |\n',
  );
  for (const [i, t] of targets.entries()) {
    const ms = perMinute(t1[i]!.all - t0[i]!.all);
    const threads = [...byThreadName(t0[i]!.threads, t1[i]!.threads)]
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${perMinute(v)}`)
      .join(', ');
    process.stdout.write(`| ${t.name} | ${ms} | ${((100 * ms) / 60_000).toFixed(2)} % | ${threads} |\n`);
  }
  process.stdout.write(`| every PostgreSQL process | ${perMinute(pg1 - pg0)} | | |\n`);
  const ms = (i: number): number => perMinute(t1[i]!.all - t0[i]!.all);
  process.stdout.write(
    `\nsqlgate serve − bare Fastify: ${ms(1) - ms(0)} ms per minute` +
      (before === undefined
        ? '\n'
        : `; before: ${ms(2) - ms(0)} (now / before ${((ms(1) - ms(0)) / Math.max(1, ms(2) - ms(0))).toFixed(2)})\n`),
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  for (const d of deployments) await dropDeployment(d);
}
