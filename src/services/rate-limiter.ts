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
  /**
   * `take` when it can decide without a round trip (the memory limiter always; Redis from a lease this replica
   * holds): the verdict, with the request counted; undefined when nothing was counted (then call `take`).
   */
  takeNow(key: string): RateVerdict | undefined;
  /** `${limit};w=${windowSeconds}`: the RateLimit-Policy header's value, the same for every request. */
  readonly policy: string;
};

const verdictOf = (res: RateLimiterRes, limit: number, windowSeconds: number, allowed: boolean) => ({
  allowed,
  limit,
  remaining: Math.max(0, res.remainingPoints),
  resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  windowSeconds,
});

/** Tokens one replica took from a key's shared count ahead of use, valid until the window ends. */
type Lease = {
  tokens: number;
  /** The shared count's remaining points just after the lease was taken (its own tokens counted as used). */
  remaining: number;
  /** When the window (and with it every leased token) ends, ms since the epoch. */
  until: number;
  /** A lease being taken: requests of this key wait for it instead of going to Redis each. */
  pending?: Promise<void> | undefined;
};

/** How leases are sized (defaults: at most 1,000 tokens, and at most 1/1000 of what the window has left). */
export type LeaseOptions = { maxLease?: number; headroomDivisor?: number };

/**
 * Fixed-window counter per key in Redis, through rate-limiter-flexible: one Lua script per call sets the
 * window's key with its expiry if absent and increments it, so replicas never race (atomic on the server).
 *
 * Leases keep most requests off Redis while the window has plenty left: a replica that knows the shared count
 * has R points left takes n = min(maxLease, floor(R / headroomDivisor)) points in one call (when n ≥ 2) and
 * answers the next n − 1 requests of that key from memory until the window ends. Once fewer than n / 2 are
 * left it takes the next lease in the background, so requests do not all wait for that round trip. Every point
 * answered from memory was counted in Redis first, so the replicas together never allow more than the limit.
 * What they may leave unused is the tokens still leased when the window runs out: at most 1.5 leases per
 * replica, each ≤ limit / headroomDivisor (0.15 % of the limit by default), and nothing for limits under
 * 2 × headroomDivisor (every request goes to Redis). A lease that found less left than it asked keeps what there was and gives
 * the rest back (`reward`).
 *
 * When Redis does not answer (down, restarting, a command past `commandTimeout`):
 * - `allow`: an in-memory limiter of the same limit decides (each replica counts alone until Redis is back,
 *   so N replicas allow up to N × the limit meanwhile); the next request after Redis returns counts there again.
 * - `deny`: the request is refused (429, Retry-After 1).
 * Tokens already leased are used either way (they were counted). ioredis reconnects by itself; with its
 * offline queue off, a request never waits for Redis to come back.
 */
export const createRedisRateLimiter = (opts: {
  redis: Redis;
  keyPrefix: string;
  limit: number;
  windowSeconds: number;
  onStoreError: 'allow' | 'deny';
  lease?: LeaseOptions;
}): RateLimiter => {
  const { limit, windowSeconds } = opts;
  const maxLease = opts.lease?.maxLease ?? 1000;
  const divisor = opts.lease?.headroomDivisor ?? 1000;
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
  const leases = new Map<string, Lease>();
  const unavailable: RateVerdict = {
    allowed: false,
    limit,
    remaining: 0,
    resetSeconds: 1,
    windowSeconds,
    storeUnavailable: true,
  };
  const fromLease = (l: Lease, now: number): RateVerdict | undefined => {
    if (l.tokens <= 0 || now >= l.until) return undefined;
    l.tokens--;
    return {
      allowed: true,
      limit,
      remaining: l.remaining + l.tokens,
      resetSeconds: Math.max(1, Math.ceil((l.until - now) / 1000)),
      windowSeconds,
    };
  };
  /**
   * Takes `n` points in one call; keeps n − 1 of them for later requests (all `n` for a refill, which answers
   * no request itself).
   */
  const consume = async (key: string, n: number, forRequest = true): Promise<RateVerdict> => {
    const own = forRequest ? 1 : 0;
    let res: RateLimiterRes;
    let granted = n;
    try {
      res = await limiter.consume(key, n);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) return unavailable; // only with `deny`
      res = e;
      // Past the limit: what was left before this call is ours, the rest goes back.
      granted = n === 1 ? 0 : Math.max(0, Math.min(n, limit - (res.consumedPoints - n)));
      if (n > 1) await limiter.reward(key, n - granted).catch(() => undefined);
      if (granted === 0) {
        // Nothing left to lease: no more refills of this window's lease.
        const l = leases.get(key);
        if (l !== undefined) l.remaining = 0;
        return verdictOf(res, limit, windowSeconds, false);
      }
    }
    const now = Date.now();
    const remaining = Math.max(0, limit - Math.min(limit, res.consumedPoints - (n - granted)));
    if (leases.size > 10_000) for (const [k, v] of leases) if (v.until <= now && !v.pending) leases.delete(k);
    const l = leases.get(key);
    const until = now + res.msBeforeNext;
    if (l === undefined) leases.set(key, { tokens: granted - own, remaining, until });
    else {
      // A newer window's count replaces the old one's; tokens of the same window add up.
      if (until > l.until + 1000 || now >= l.until) l.tokens = 0;
      l.tokens = Math.max(0, l.tokens) + granted - own;
      l.remaining = remaining;
      l.until = until;
    }
    return {
      allowed: true,
      limit,
      remaining: remaining + granted - own,
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      windowSeconds,
    };
  };
  /**
   * The next lease, taken in the background once less than half of what a lease would be is left, so that
   * requests keep being answered from memory during the round trip instead of all waiting for it.
   */
  const refill = (key: string, l: Lease, now: number): void => {
    if (l.pending !== undefined || now >= l.until) return;
    const n = Math.min(maxLease, Math.floor(l.remaining / divisor));
    if (n < 2 || l.tokens * 2 >= n) return;
    const pending = consume(key, n, false).then(
      () => undefined,
      () => undefined,
    );
    l.pending = pending;
    void pending.then(() => {
      if (l.pending === pending) l.pending = undefined;
    });
  };
  /** A request answered from the lease, if it has a token left (and the next lease asked for when due). */
  const leased = (key: string, l: Lease, now: number): RateVerdict | undefined => {
    const v = fromLease(l, now);
    if (v !== undefined) refill(key, l, now);
    return v;
  };
  return {
    kind: 'redis',
    policy: `${limit};w=${windowSeconds}`,
    takeNow: (key) => {
      const l = leases.get(key);
      return l === undefined ? undefined : leased(key, l, Date.now());
    },
    take: async (key) => {
      for (;;) {
        const now = Date.now();
        const l = leases.get(key);
        if (l !== undefined) {
          const v = leased(key, l, now);
          if (v) return v;
          if (l.pending) {
            await l.pending;
            continue;
          }
        }
        const known = l !== undefined && now < l.until ? l.remaining : 0;
        const n = Math.min(maxLease, Math.floor(known / divisor));
        if (n < 2 || l === undefined) return consume(key, 1);
        let verdict!: RateVerdict;
        const pending = consume(key, n).then((v) => void (verdict = v));
        l.pending = pending;
        try {
          await pending;
        } finally {
          if (l.pending === pending) l.pending = undefined;
        }
        return verdict;
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
  const takeNow = (key: string): RateVerdict => {
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
    return {
      allowed: current.count <= limit,
      limit,
      remaining: Math.max(0, limit - current.count),
      resetSeconds,
      windowSeconds,
    };
  };
  return {
    kind: 'memory',
    policy: `${limit};w=${windowSeconds}`,
    takeNow,
    take: (key) => Promise.resolve(takeNow(key)),
  };
};
