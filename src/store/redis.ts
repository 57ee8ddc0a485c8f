import { Redis } from 'ioredis';

/**
 * The connection to the shared Redis (rate limits). Requests never wait for it: with the offline queue off,
 * a command while disconnected fails at once, and one that takes longer than `commandTimeoutMs` fails too;
 * the callers decide what a failure means. ioredis reconnects by itself (every 100 ms to 1 s, forever).
 */
export const openRedis = (url: string, commandTimeoutMs = 250): Redis => {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(1_000, 100 * times),
    lazyConnect: false,
  });
  // Connection errors are reported through failed commands; unhandled, the event would crash the process.
  redis.on('error', () => undefined);
  return redis;
};

/** Resolves once connected, or after `ms` (the limiter decides on its own until then). */
export const redisReady = (redis: Redis, ms: number): Promise<void> =>
  redis.status === 'ready'
    ? Promise.resolve()
    : new Promise((resolve) => {
        const t = setTimeout(resolve, ms);
        redis.once('ready', () => {
          clearTimeout(t);
          resolve();
        });
      });

/** True when Redis answers a PING within the command timeout. */
export const pingRedis = (redis: Redis): Promise<boolean> =>
  redis.ping().then(
    (r) => r === 'PONG',
    () => false,
  );
