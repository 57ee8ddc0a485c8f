import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpointOver, runCli, startGatewayProcess } from '../helpers/process.ts';
import type { GatewayProcess } from '../helpers/process.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { createDeployment, missing, PORTS } from './support.ts';

/**
 * Three gateway processes on one PostgreSQL schema and one Redis behave as one gateway: the rate limit,
 * key revocation and webhook delivery hold across them, while a replica is killed and while Redis is away.
 * Redis here is a private redis-server this suite starts and stops (never the machine's shared one).
 */
const why = missing();
if (why) process.stdout.write(`scale-out replicas: skipped, ${why}\n`);

const LIMIT = 300;
const SECRET = 'scaleout-test-dashboard-secret-0123456789';
const REDIS_PORT = PORTS.ownRedis;
const d = createDeployment('replicas');
const gateways: GatewayProcess[] = [];
const envs: Array<Record<string, string>> = [];

const redisCli = (args: string[]): string =>
  execFileSync('redis-cli', ['-p', String(REDIS_PORT), ...args], { encoding: 'utf8', stdio: 'pipe' });
const startRedis = (): void => {
  execFileSync('redis-server', [
    ...['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    ...['--daemonize', 'yes'],
  ]);
  for (let i = 0; i < 50; i++) {
    try {
      if (redisCli(['ping']).trim() === 'PONG') return;
    } catch {
      // not up yet
    }
    execFileSync('sleep', ['0.1']);
  }
  throw new Error('private redis-server did not start');
};
const stopRedis = (): void => {
  try {
    redisCli(['shutdown', 'nosave']);
  } catch {
    // the connection closes as the server stops, or it was not running
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const call = async (
  g: GatewayProcess,
  path: string,
  key: string,
  init: RequestInit = {},
): Promise<Response> =>
  fetch(`${g.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
  });
let warmKey = '';
/**
 * A replica's first queries start its SQL worker thread (module and WebAssembly compilation: seconds on a busy
 * machine); a load balancer's readiness probe would hold traffic back meanwhile, and so does this.
 */
const warm = async (g: GatewayProcess): Promise<void> => {
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${g.url}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${warmKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `SELECT ${i} AS warm` }),
    });
    await r.arrayBuffer();
  }
};
const newKey = async (email: string): Promise<string> =>
  (await runCli(['keys', 'create', '--account', email], envs[0]!)).trim();

beforeAll(async () => {
  if (why) return;
  stopRedis();
  startRedis();
  await d.setUp();
  for (let i = 0; i < 3; i++)
    envs.push(
      d.env({
        SQLGATE_PORT: String(PORTS.gateway + i),
        SQLGATE_REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`,
        SQLGATE_RATE_LIMIT_PER_MINUTE: String(LIMIT),
        SQLGATE_DASHBOARD_SECRET: SECRET,
        SQLGATE_WEBHOOK_POLL_MS: '50',
        SQLGATE_WEBHOOK_RETRY_BASE_MS: '200',
        // A killed replica's claims expire after 2 × this + 10 s; then another replica delivers them. Not
        // shorter: an attempt that times out is retried while this process (the receiver) may not have
        // answered it yet on a loaded machine, which the receiver would count as a concurrent duplicate.
        SQLGATE_WEBHOOK_TIMEOUT_MS: '5000',
        SQLGATE_REPLICA_NAME: `replica-${i}`,
        // One SQL thread, warmed before the runs: a second one would start cold in the middle of one.
        SQLGATE_SQL_WORKERS: '1',
      }),
    );
  // The first creates the schema (migrations take an advisory lock: the others would wait anyway).
  gateways.push(...(await d.start([envs[0]!])));
  gateways.push(...(await d.start([envs[1]!, envs[2]!])));
  warmKey = await newKey('warm@scaleout.test');
  await Promise.all(gateways.map((g) => warm(g)));
}, 120_000);

afterAll(async () => {
  await d.tearDown();
  stopRedis();
});

describe.skipIf(why !== undefined)('three replicas on one PostgreSQL and Redis', () => {
  it(`a limit of ${LIMIT} per minute per key holds across them within 1 % under concurrent load`, async () => {
    const key = await newKey('limit@scaleout.test');
    const total = 2 * LIMIT + 60;
    const statuses: number[] = [];
    const refused: Response[] = [];
    let next = 0;
    const client = async (): Promise<void> => {
      for (let i = next++; i < total; i = next++) {
        const r = await call(gateways[i % 3]!, '/warehouses', key);
        statuses.push(r.status);
        if (r.status === 429) refused.push(r);
        await r.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 24 }, client));
    const allowed = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(Math.abs(allowed - LIMIT)).toBeLessThanOrEqual(LIMIT * 0.01);
    const r = refused[0]!;
    expect(r.headers.get('ratelimit-policy')).toBe(`${LIMIT};w=60`);
    expect(r.headers.get('ratelimit')).toMatch(new RegExp(`^limit=${LIMIT}, remaining=0, reset=\\d+$`));
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  }, 60_000);

  it('a key revoked through one replica is refused by the other two within 1 s', async () => {
    const [a, b, c] = gateways as [GatewayProcess, GatewayProcess, GatewayProcess];
    // Sign up on replica A's dashboard as a browser would; the key is made for that account by the CLI.
    const email = `revoke-${randomBytes(3).toString('hex')}@scaleout.test`;
    const cookies = new Map<string, string>();
    const browse = async (path: string, form?: Record<string, string>): Promise<string> => {
      const r = await fetch(`${a.url}${path}`, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          accept: 'text/html',
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      for (const c of r.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const [k, v] = (pair ?? '').split('=');
        if (k) cookies.set(k.trim(), v ?? '');
      }
      expect(r.status).toBeLessThan(400);
      return r.text();
    };
    const csrf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const signup = await browse('/signup');
    await browse('/signup', {
      _csrf: csrf(signup),
      email,
      password: 'correct horse battery',
      next: '/overview',
    });
    const key = await newKey(email);
    const keysPage = await browse('/keys');
    const id = /\/keys\/(key_[a-z0-9]+)\/revoke/.exec(keysPage)?.[1];
    expect(id).toBeDefined();
    // Every replica has accepted (and may remember) the key.
    for (const g of [a, b, c, a, b, c]) expect((await call(g, '/warehouses', key)).status).toBe(200);

    const confirm = await browse(`/keys/${id}/revoke`);
    const refusedAt: Record<string, number> = {};
    let done = false;
    const poll = async (g: GatewayProcess, name: string): Promise<void> => {
      while (!done) {
        const r = await call(g, '/warehouses', key);
        await r.arrayBuffer();
        if (r.status === 401) {
          refusedAt[name] = Date.now();
          return;
        }
        expect(r.status).toBe(200);
      }
    };
    const polling = [poll(b, 'b'), poll(c, 'c')];
    await sleep(50);
    const before = Date.now();
    await browse(`/keys/${id}/revoke`, { _csrf: csrf(confirm) });
    const revokedAt = Date.now();
    expect((await call(a, '/warehouses', key)).status).toBe(401);
    await Promise.race([Promise.all(polling), sleep(3_000)]);
    done = true;
    await Promise.all(polling);
    expect(Object.keys(refusedAt).sort()).toEqual(['b', 'c']);
    if (process.env.SQLGATE_TEST_SCALEOUT_VERBOSE)
      process.stderr.write(
        `revocation refused by b, c after ${JSON.stringify(Object.values(refusedAt).map((t) => t - revokedAt))} ms\n`,
      );
    for (const t of Object.values(refusedAt)) expect(t - revokedAt).toBeLessThan(1_000);
    // Nothing refused it before the revocation was sent.
    for (const t of Object.values(refusedAt)) expect(t).toBeGreaterThanOrEqual(before);
    const r = await call(c, '/warehouses', key);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
  }, 60_000);

  it('1,000 queries over the three: 1,000 deliveries, no concurrent duplicate, one replica SIGKILLed and restarted', async () => {
    // 1,000 as the issue asks; a smaller count through SQLGATE_TEST_SCALEOUT_EVENTS on a starved machine.
    const EVENTS = Number(process.env.SQLGATE_TEST_SCALEOUT_EVENTS ?? 1_000);
    const email = 'hooks@scaleout.test';
    // Four keys of one account, so that 1,000 queries stay under the per-key limit.
    const keys = [await newKey(email), await newKey(email), await newKey(email), await newKey(email)];
    const receiver = await startReceiver({ holdMs: 5, port: PORTS.receiver });
    try {
      await createEndpointOver(gateways[0]!.url, keys[0]!, receiver.url);
      const ok = new Set<string>();
      const unknown = new Set<string>(); // sent to the replica that was killed: maybe run, maybe not
      let sent = 0;
      let killed = false;
      let restarted: Promise<void> | undefined;
      const up = [true, true, true];
      const query = async (i: number): Promise<void> => {
        for (let attempt = 0; ; attempt++) {
          const live = [0, 1, 2].filter((n) => up[n]);
          const n = live[(i + attempt) % live.length]!;
          const trace = randomBytes(16).toString('hex');
          try {
            const r = await fetch(`${gateways[n]!.url}/query`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${keys[i % 4]!}`,
                'content-type': 'application/json',
                traceparent: `00-${trace}-${randomBytes(8).toString('hex')}-01`,
              },
              body: JSON.stringify({ query: `SELECT ${i} AS i` }),
            });
            const body = (await r.json()) as { trace_id: string };
            if (r.status === 429) {
              // Back-pressure (a replica's SQL workers busy, e.g. the one just restarted): nothing ran; retry.
              await sleep(1_000 * Number(r.headers.get('retry-after') ?? 1));
              continue;
            }
            expect(r.status, JSON.stringify(body)).toBe(200);
            expect(body.trace_id).toBe(trace);
            ok.add(trace);
            return;
          } catch (e) {
            if (!(e instanceof TypeError)) throw e; // a connection refused or reset: the replica is down
            unknown.add(trace);
            await sleep(20);
          }
        }
      };
      let next = 0;
      const client = async (): Promise<void> => {
        for (let i = next++; i < EVENTS; i = next++) {
          sent++;
          if (!killed && sent >= EVENTS / 3) {
            killed = true;
            up[2] = false;
            gateways[2]!.proc.kill('SIGKILL');
            restarted = gateways[2]!.exited.then(async () => {
              const g = await startGatewayProcess(envs[2]!);
              gateways[2] = g;
              await warm(g);
              up[2] = true;
            });
          }
          await query(i);
        }
      };
      const t0 = Date.now();
      await Promise.all(Array.from({ length: 8 }, client));
      await restarted;
      if (process.env.SQLGATE_TEST_SCALEOUT_VERBOSE)
        process.stderr.write(`queries done in ${Date.now() - t0} ms\n`);
      expect(ok.size).toBe(EVENTS);

      const ids = (): Set<string> => new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
      // Parsed once each, as they arrive (the wait below polls every 20 ms).
      const seen = new Set<string>();
      let parsed = 0;
      const delivered = (): Set<string> => {
        for (; parsed < receiver.received.length; parsed++)
          seen.add(
            (JSON.parse(receiver.received[parsed]!.body) as { data: { trace_id: string } }).data.trace_id,
          );
        return seen;
      };
      await receiver.waitFor(() => {
        const now = delivered();
        return [...ok].every((t) => now.has(t));
      }, 60_000);
      await sleep(500);
      expect(receiver.concurrentDuplicates).toEqual([]);
      // Each event once per endpoint (at-least-once allows a repeat after a kill, never at the same time).
      const all = delivered();
      expect([...ok].filter((t) => !all.has(t))).toEqual([]);
      expect([...all].filter((t) => !ok.has(t) && !unknown.has(t))).toEqual([]);
      expect(ids().size).toBe(all.size);
    } finally {
      await receiver.close();
    }
  }, 110_000);

  it('Redis stopped and restarted mid-run: no 5xx; allow decides in memory, deny refuses; both recover', async () => {
    const key = await newKey('redis@scaleout.test');
    const { SQLGATE_DATA_DIR: _shared, ...first } = envs[0]!;
    const denyEnv = d.env({
      ...first,
      SQLGATE_PORT: String(PORTS.gateway + 3),
      SQLGATE_RATE_LIMIT_ON_STORE_ERROR: 'deny',
      SQLGATE_REPLICA_NAME: 'replica-deny',
    });
    const [deny] = await d.start([denyEnv]);
    const all = [...gateways, deny!];
    const statuses = new Map<number, number>();
    const denyStatuses: number[] = [];
    let running = true;
    const load = async (n: number): Promise<void> => {
      for (let i = 0; running; i++) {
        const g = all[(n + i) % all.length]!;
        const r = await call(g, '/warehouses', key);
        await r.arrayBuffer();
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (g === deny) denyStatuses.push(r.status);
        await sleep(40);
      }
    };
    const loaders = Array.from({ length: 4 }, (_, n) => load(n));
    try {
      await sleep(1_000);
      expect(denyStatuses.at(-1)).toBe(200);
      stopRedis();
      await sleep(1_500);
      // allow (the three): served, counted in memory meanwhile; ready, with Redis reported down.
      const ready = (await (await fetch(`${gateways[0]!.url}/readyz`)).json()) as {
        checks: Record<string, boolean>;
      };
      expect(ready.checks.redis).toBe(false);
      expect((await call(gateways[1]!, '/warehouses', key)).status).toBe(200);
      // deny: refused with 429 and Retry-After: 1, and not ready.
      const refused = await call(deny!, '/warehouses', key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/store is unreachable/);
      expect((await fetch(`${deny!.url}/readyz`)).status).toBe(503);
      startRedis();
      // Both recover by themselves: Redis counts again, and the deny replica serves.
      const until = Date.now() + 10_000;
      while ((await call(deny!, '/warehouses', key)).status !== 200) {
        expect(Date.now()).toBeLessThan(until);
        await sleep(100);
      }
      await sleep(500);
      expect((await fetch(`${deny!.url}/readyz`)).status).toBe(200);
      const counted = Number(
        redisCli(['--scan', '--pattern', `${d.redisPrefix}rl:*`])
          .trim()
          .split('\n').length,
      );
      expect(counted).toBeGreaterThanOrEqual(1);
    } finally {
      running = false;
      await Promise.all(loaders);
    }
    expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([]);
    expect([...statuses.keys()].every((s) => s === 200 || s === 429)).toBe(true);
  }, 90_000);
});
