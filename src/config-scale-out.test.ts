import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const PG = { SQLGATE_DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' };

describe('scale-out settings', () => {
  it('defaults: one process, rate limit in memory, allow on store error', () => {
    expect(loadConfig({})).toMatchObject({
      workers: 1,
      redisUrl: undefined,
      redisKeyPrefix: 'sqlgate:',
      rateLimitOnStoreError: 'allow',
      replicaName: undefined,
    });
  });
  it('reads the Redis URL, prefix, policy, workers and replica name', () => {
    expect(
      loadConfig({
        ...PG,
        SQLGATE_REDIS_URL: 'redis://127.0.0.1:6379/2',
        SQLGATE_REDIS_KEY_PREFIX: 'prod:',
        SQLGATE_RATE_LIMIT_ON_STORE_ERROR: 'deny',
        SQLGATE_WORKERS: '3',
        SQLGATE_REPLICA_NAME: 'eu-1',
      }),
    ).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379/2',
      redisKeyPrefix: 'prod:',
      rateLimitOnStoreError: 'deny',
      workers: 3,
      replicaName: 'eu-1',
    });
    expect(loadConfig({ ...PG, SQLGATE_WORKERS: 'auto' }).workers).toBe(availableParallelism());
  });
  it.each([
    ['SQLGATE_REDIS_URL', 'postgres://x'],
    ['SQLGATE_RATE_LIMIT_ON_STORE_ERROR', 'maybe'],
    ['SQLGATE_WORKERS', 'many'],
    ['SQLGATE_WORKERS', '0'],
    ['SQLGATE_WORKERS', '-2'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ ...PG, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...PG, [name]: value })).toThrow(name);
  });
  it('refuses several workers on the embedded store, saying why', () => {
    for (const w of ['2', 'auto'].filter((v) => v !== 'auto' || availableParallelism() > 1)) {
      expect(() => loadConfig({ SQLGATE_WORKERS: w })).toThrow(
        /SQLGATE_WORKERS: .*need a shared state store: set SQLGATE_DATABASE_URL.*embedded store belongs to one process/,
      );
    }
    expect(loadConfig({ SQLGATE_WORKERS: '1' }).workers).toBe(1);
  });
});
