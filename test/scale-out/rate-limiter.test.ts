import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../src/services/rate-limiter.ts';
import { openRedis, redisReady } from '../../src/store/redis.ts';

/** Redis to test against (e.g. redis://127.0.0.1:6379); keys carry a random prefix of this run. */
const REDIS_URL = process.env.SQLGATE_TEST_REDIS_URL;
if (REDIS_URL === undefined)
  process.stdout.write('scale-out rate limiter: Redis tests skipped, SQLGATE_TEST_REDIS_URL is not set\n');

/** A private redis-server for the outage test (scale-out's port range is 26500–26599). */
const OWN_REDIS_PORT = 26_510;

const clients: Redis[] = [];
const prefix = `sqlgate-test-scaleout-${randomBytes(4).toString('hex')}:`;
afterAll(async () => {
  if (REDIS_URL !== undefined) {
    const r = openRedis(REDIS_URL);
    await redisReady(r, 2_000);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length > 0) await r.del(...keys);
    r.disconnect();
  }
  for (const c of clients) c.disconnect();
});

const open = async (url: string): Promise<Redis> => {
  const r = openRedis(url);
  clients.push(r);
  await redisReady(r, 2_000);
  return r;
};

describe('in-memory rate limiter', () => {
  it('allows exactly the limit per window and resets with the clock', async () => {
    let now = 60_000 * 1000 + 30_000;
    const l = createMemoryRateLimiter(5, 60_000, () => now);
    const verdicts = await Promise.all(Array.from({ length: 8 }, () => l.take('k')));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(5);
    expect(verdicts[7]).toMatchObject({ remaining: 0, resetSeconds: 30, windowSeconds: 60 });
    now += 30_000;
    expect((await l.take('k')).allowed).toBe(true);
  });
});

describe.skipIf(REDIS_URL === undefined)('Redis rate limiter', () => {
  it.each([7, 50, 333])('%i per window across three replicas: exactly that many allowed', async (limit) => {
    const keyPrefix = `${prefix}${limit}:`;
    const limiters = await Promise.all(
      [0, 1, 2].map(async () =>
        createRedisRateLimiter({
          redis: await open(REDIS_URL ?? ''),
          keyPrefix,
          limit,
          windowSeconds: 60,
          onStoreError: 'deny',
        }),
      ),
    );
    const tries = limit * 2 + 11;
    const verdicts = await Promise.all(
      Array.from({ length: tries }, (_, i) => limiters[i % 3]!.take('key_a')),
    );
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(limit);
    expect(verdicts.every((v) => v.storeUnavailable === undefined)).toBe(true);
    const refused = verdicts.find((v) => !v.allowed);
    expect(refused).toMatchObject({ limit, remaining: 0, windowSeconds: 60 });
    expect(refused!.resetSeconds).toBeGreaterThan(0);
    expect(refused!.resetSeconds).toBeLessThanOrEqual(60);
    // Another key has its own count.
    expect((await limiters[0]!.take('key_b')).allowed).toBe(true);
  });

  /** Counts the commands a client sends (every ioredis command goes through `sendCommand`). */
  const counted = (r: Redis): { r: Redis; calls: () => number } => {
    let n = 0;
    const send = r.sendCommand.bind(r);
    r.sendCommand = (...a: Parameters<Redis['sendCommand']>) => {
      n++;
      return send(...a);
    };
    return { r, calls: () => n };
  };

  it.each([20_000, 50_000])(
    'leases, %i per window across three replicas: never past the limit, ≥ 99 % of it, most requests without Redis',
    async (limit) => {
      const keyPrefix = `${prefix}lease${limit}:`;
      const clients = await Promise.all([0, 1, 2].map(async () => counted(await open(REDIS_URL ?? ''))));
      // Not a test of Redis' speed: on a loaded machine a command may take longer than the gateway's 250 ms.
      for (const c of clients) c.r.options.commandTimeout = 30_000;
      const limiters = clients.map((c) =>
        createRedisRateLimiter({ redis: c.r, keyPrefix, limit, windowSeconds: 60, onStoreError: 'deny' }),
      );
      const tries = Math.round(limit * 1.05);
      let allowed = 0;
      let next = 0;
      // 60 concurrent callers, spread over the three replicas; one of them stops early (its lease stays unused).
      const caller = async (c: number): Promise<void> => {
        for (let i = next++; i < tries; i = next++) {
          const replica = c === 0 && i > limit / 2 ? 1 : i % 3;
          const v = await limiters[replica]!.take('key_a');
          if (v.allowed) allowed++;
          expect(v.storeUnavailable).toBeUndefined();
        }
      };
      await Promise.all(Array.from({ length: 60 }, (_, c) => caller(c)));
      expect(allowed).toBeLessThanOrEqual(limit);
      expect(allowed).toBeGreaterThanOrEqual(limit * 0.99);
      const calls = clients.reduce((t, c) => t + c.calls(), 0);
      expect(calls).toBeLessThan(tries / 2);
      const refused = await limiters[2]!.take('key_a');
      expect(refused).toMatchObject({ allowed: false, limit, remaining: 0, windowSeconds: 60 });
    },
    60_000,
  );

  it('the next lease is asked for before this one runs out, while requests are answered from memory', async () => {
    const keyPrefix = `${prefix}refill:`;
    const c = counted(await open(REDIS_URL ?? ''));
    const a = createRedisRateLimiter({
      redis: c.r,
      keyPrefix,
      limit: 1_000_000,
      windowSeconds: 60,
      onStoreError: 'deny',
      lease: { maxLease: 100 },
    });
    await a.take('k'); // the first request of a key asks Redis alone; the second takes a lease of 100
    await a.take('k');
    const before = c.calls();
    // 60 of the lease's 99 tokens, decided in memory: past half of it, the next lease is on its way.
    for (let i = 0; i < 60; i++) expect(a.takeNow('k')?.allowed).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(c.calls()).toBeGreaterThan(before);
    // Requests still answered from what is left while it comes.
    expect(a.takeNow('k')?.allowed).toBe(true);
    // Once it has come: every request counted in Redis first, no more than 1.5 leases ahead of them.
    const key = `${keyPrefix}rl:k`;
    for (let i = 0; i < 500 && Number(await c.r.get(key)) < 201; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(Number(await c.r.get(key))).toBe(1 + 100 + 100);
    // 99 + 100 leased, 62 used: 137 left in memory, besides what Redis has left.
    expect(a.takeNow('k')?.remaining).toBe(1_000_000 - 201 + 137);
  });

  it('a lease that finds less left than it asks keeps what there was and gives the rest back', async () => {
    const keyPrefix = `${prefix}partial:`;
    const r = await open(REDIS_URL ?? '');
    const a = createRedisRateLimiter({
      redis: r,
      keyPrefix,
      limit: 3000,
      windowSeconds: 60,
      onStoreError: 'deny',
      lease: { maxLease: 100, headroomDivisor: 10 },
    });
    expect(await a.take('k')).toMatchObject({ allowed: true, remaining: 2999 });
    // Other replicas take 2,990 meanwhile: 9 are left, and this replica still believes 2,999 are.
    await r.incrby(`${keyPrefix}rl:k`, 2990);
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => a.take('k')));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(9);
    // The limit's 3,000, plus the 11 refused (a refused request is counted too, as without leases).
    expect(Number(await r.get(`${keyPrefix}rl:k`))).toBe(3000 + 11);
    const last = verdicts.at(-1)!;
    expect(last).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('Redis stopped: allow decides in memory, deny refuses; both recover by themselves', async () => {
    const redisCli = (args: string[]) =>
      execFileSync('redis-cli', ['-p', String(OWN_REDIS_PORT), ...args], { encoding: 'utf8', stdio: 'pipe' });
    const start = () =>
      execFileSync('redis-server', [
        '--port',
        String(OWN_REDIS_PORT),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'yes',
      ]);
    const stop = () => {
      try {
        redisCli(['shutdown', 'nosave']);
      } catch {
        // the connection closes as the server stops
      }
    };
    const waitUntil = async (cond: () => Promise<boolean>, ms: number) => {
      const until = Date.now() + ms;
      while (!(await cond())) {
        if (Date.now() > until) throw new Error(`condition not met in ${ms} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    stop();
    start();
    try {
      const url = `redis://127.0.0.1:${OWN_REDIS_PORT}`;
      const allow = createRedisRateLimiter({
        redis: await open(url),
        keyPrefix: prefix,
        limit: 3,
        windowSeconds: 60,
        onStoreError: 'allow',
      });
      const deny = createRedisRateLimiter({
        redis: await open(url),
        keyPrefix: `${prefix}deny:`,
        limit: 3,
        windowSeconds: 60,
        onStoreError: 'deny',
      });
      expect((await deny.take('k')).allowed).toBe(true);
      stop();
      await waitUntil(async () => (await deny.take('k')).storeUnavailable === true, 5_000);
      const down = await deny.take('k');
      expect(down).toMatchObject({ allowed: false, storeUnavailable: true, resetSeconds: 1 });
      // allow: the in-memory insurance limiter counts the same limit while Redis is away.
      const meanwhile = await Promise.all(Array.from({ length: 5 }, () => allow.take('x')));
      expect(meanwhile.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
      start();
      // Back: Redis counts again (a fresh server, so a fresh window), with no restart of the limiter.
      await waitUntil(async () => (await deny.take('k')).storeUnavailable === undefined, 10_000);
      expect(Number(redisCli(['get', `${prefix}deny:rl:k`]).trim())).toBeGreaterThanOrEqual(1);
    } finally {
      stop();
    }
  }, 30_000);
});
