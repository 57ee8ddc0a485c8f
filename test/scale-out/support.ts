import { get as httpGet } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { TEST_DEMO_SCALE } from '../helpers/gateway.ts';
import { startGatewayProcess } from '../helpers/process.ts';
import type { GatewayProcess } from '../helpers/process.ts';
import { adminQuery } from '../support/pg-schema.ts';

/** Shared services of the scale-out tests (real ones); each suite skips, saying which is missing. */
export const PG_URL = process.env.SQLGATE_TEST_POSTGRES_URL;
export const REDIS_URL = process.env.SQLGATE_TEST_REDIS_URL;
export const missing = (): string | undefined =>
  PG_URL === undefined
    ? 'SQLGATE_TEST_POSTGRES_URL is not set (a PostgreSQL URL)'
    : REDIS_URL === undefined
      ? 'SQLGATE_TEST_REDIS_URL is not set (a Redis URL)'
      : undefined;

/** Ports of this work (26500–26599): gateways from 26530, receivers from 26560, a private Redis at 26511. */
export const PORTS = { gateway: 26_530, receiver: 26_560, ownRedis: 26_511 } as const;

/**
 * A deployment of replicas: its own PostgreSQL schema `scaleout_<random>` and Redis key prefix, and a data
 * directory per process (each generates the small demo dataset for local mode).
 */
export const createDeployment = (name: string) => {
  const id = randomBytes(4).toString('hex');
  const schema = `scaleout_${name}_${id}`;
  const redisPrefix = `sqlgate-test-scaleout-${name}-${id}:`;
  const dirs: string[] = [];
  const running = new Set<GatewayProcess>();
  const sep = (PG_URL ?? '').includes('?') ? '&' : '?';
  const env = (extra: Record<string, string> = {}): Record<string, string> => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlgate-scaleout-'));
    dirs.push(dir);
    return {
      SQLGATE_DATA_DIR: dir,
      SQLGATE_DATABASE_URL: `${PG_URL ?? ''}${sep}options=-c%20search_path%3D${schema}`,
      SQLGATE_REDIS_URL: REDIS_URL ?? '',
      SQLGATE_REDIS_KEY_PREFIX: redisPrefix,
      SQLGATE_DEMO_SCALE: TEST_DEMO_SCALE,
      SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      SQLGATE_MAX_CONCURRENT_PER_ACCOUNT: '64',
      SQLGATE_LOG_LEVEL: 'warn',
      ...extra,
    };
  };
  return {
    schema,
    redisPrefix,
    env,
    setUp: () => adminQuery(PG_URL ?? '', `CREATE SCHEMA ${schema}`),
    start: async (envs: Array<Record<string, string>>): Promise<GatewayProcess[]> => {
      const started = await Promise.allSettled(envs.map((e) => startGatewayProcess(e)));
      const gateways = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      for (const g of gateways) running.add(g);
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      return gateways;
    },
    kill: async (g: GatewayProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
      g.proc.kill(signal);
      await g.exited;
      running.delete(g);
    },
    tearDown: async (): Promise<void> => {
      for (const g of running) {
        g.proc.kill('SIGKILL');
        await g.exited;
      }
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      if (PG_URL !== undefined) await adminQuery(PG_URL, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      if (REDIS_URL !== undefined) {
        const r = new Redis(REDIS_URL);
        const keys = await r.keys(`${redisPrefix}*`);
        if (keys.length > 0) await r.del(...keys);
        r.disconnect();
      }
    },
  };
};

export const get = (base: string, path: string, key?: string): Promise<Response> =>
  fetch(`${base}${path}`, key ? { headers: { authorization: `Bearer ${key}` } } : {});

/** GET over a connection of its own (no keep-alive), so that node:cluster may hand it to any worker. */
export const getFresh = (
  base: string,
  path: string,
  key?: string,
): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const headers = key ? { authorization: `Bearer ${key}` } : {};
    const req = httpGet(`${base}${path}`, { agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
