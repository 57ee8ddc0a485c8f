export type RateVerdict = {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
  windowSeconds: number;
};

/**
 * Fixed-window counter per key, in process memory (one gateway process; a shared store such as Redis is
 * the way for several). Windows are aligned to the clock so that `reset` is the same for every request.
 */
export const createRateLimiter = (limit: number, windowMs: number) => {
  const counts = new Map<string, { window: number; count: number }>();
  return {
    take: (key: string, nowMs: number): RateVerdict => {
      const window = Math.floor(nowMs / windowMs);
      const entry = counts.get(key);
      const current = entry && entry.window === window ? entry : { window, count: 0 };
      current.count++;
      counts.set(key, current);
      if (counts.size > 100_000) for (const [k, v] of counts) if (v.window !== window) counts.delete(k);
      const resetSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000));
      return {
        allowed: current.count <= limit,
        limit,
        remaining: Math.max(0, limit - current.count),
        resetSeconds,
        windowSeconds: Math.round(windowMs / 1000),
      };
    },
  };
};
