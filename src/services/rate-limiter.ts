import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** One request counted against a key's limit. */
export type RateVerdict = {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
  windowSeconds: number;
  /** Set when the shared store did not answer and the request was refused for that (`deny`). */
  storeUnavailable?: true;
};

/** The per-key limit: in process memory (one process) or in Redis (every replica counts in one place). */
export type RateLimiter = {
  readonly kind: 'memory' | 'redis';
  take(key: string): Promise<RateVerdict>;
};

const verdictOf = (res: RateLimiterRes, limit: number, windowSeconds: number, allowed: boolean) => ({
  allowed,
  limit,
  remaining: Math.max(0, res.remainingPoints),
  resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  windowSeconds,
});

/**
 * Fixed-window counter per key in Redis, through rate-limiter-flexible: one Lua script per request sets the
 * window's key with its expiry if absent and increments it, so replicas never race (atomic on the server).
 * When Redis does not answer (down, restarting, a command past `commandTimeout`):
 * - `allow`: an in-memory limiter of the same limit decides (each replica counts alone until Redis is back,
 *   so N replicas allow up to N × the limit meanwhile); the next request after Redis returns counts there again.
 * - `deny`: the request is refused (429, Retry-After 1).
 * ioredis reconnects by itself; with its offline queue off, a request never waits for Redis to come back.
 */
export const createRedisRateLimiter = (opts: {
  redis: Redis;
  keyPrefix: string;
  limit: number;
  windowSeconds: number;
  onStoreError: 'allow' | 'deny';
}): RateLimiter => {
  const { limit, windowSeconds } = opts;
  const limiter = new RateLimiterRedis({
    storeClient: opts.redis,
    keyPrefix: `${opts.keyPrefix}rl`,
    points: limit,
    duration: windowSeconds,
    rejectIfRedisNotReady: true,
    ...(opts.onStoreError === 'allow'
      ? { insuranceLimiter: new RateLimiterMemory({ points: limit, duration: windowSeconds }) }
      : {}),
  });
  return {
    kind: 'redis',
    take: async (key) => {
      try {
        return verdictOf(await limiter.consume(key), limit, windowSeconds, true);
      } catch (e) {
        if (e instanceof RateLimiterRes) return verdictOf(e, limit, windowSeconds, false);
        // Only with `deny` (no insurance limiter): Redis failed and nothing else may decide.
        return {
          allowed: false,
          limit,
          remaining: 0,
          resetSeconds: 1,
          windowSeconds,
          storeUnavailable: true,
        };
      }
    },
  };
};

/**
 * Fixed-window counter per key, in process memory (one gateway process; Redis is the way for several).
 * Windows are aligned to the clock so that `reset` is the same for every request.
 */
export const createMemoryRateLimiter = (
  limit: number,
  windowMs: number,
  clock: () => number = Date.now,
): RateLimiter => {
  const counts = new Map<string, { window: number; count: number }>();
  const windowSeconds = Math.round(windowMs / 1000);
  return {
    kind: 'memory',
    take: (key) => {
      const nowMs = clock();
      const window = Math.floor(nowMs / windowMs);
      let current = counts.get(key);
      if (current === undefined || current.window !== window) {
        current = { window, count: 0 };
        counts.set(key, current);
      }
      current.count++;
      if (counts.size > 100_000) for (const [k, v] of counts) if (v.window !== window) counts.delete(k);
      const resetSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000));
      return Promise.resolve({
        allowed: current.count <= limit,
        limit,
        remaining: Math.max(0, limit - current.count),
        resetSeconds,
        windowSeconds,
      });
    },
  };
};
