import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DEMO_SCALE } from './helpers/gateway.ts';
import { createEndpointOver, postQuery, runCli, startGatewayProcess } from './helpers/process.ts';
import type { GatewayProcess } from './helpers/process.ts';
import { startReceiver } from './helpers/receiver.ts';
import { adminQuery } from './support/pg-schema.ts';

/** PostgreSQL to test against, e.g. postgres://postgres@127.0.0.1:5432/test; each run uses its own schema. */
const BASE_URL = process.env.SQLGATE_TEST_POSTGRES_URL;
if (BASE_URL === undefined)
  process.stdout.write(
    'webhooks-postgres: skipped, SQLGATE_TEST_POSTGRES_URL is not set (a PostgreSQL URL)\n',
  );

const EVENTS = 1_000;
const schema = `sg_${randomBytes(6).toString('hex')}`;
const dirs: string[] = [];
const running: GatewayProcess[] = [];

const admin = (sql: string): Promise<void> => adminQuery(BASE_URL!, sql);

afterAll(async () => {
  for (const g of running) {
    g.proc.kill('SIGKILL');
    await g.exited;
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  if (BASE_URL !== undefined) await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

describe.skipIf(BASE_URL === undefined)('webhooks with two gateway processes on one PostgreSQL', () => {
  it(`delivers each of ${EVENTS} events exactly once, never the same one concurrently`, async () => {
    await admin(`CREATE SCHEMA ${schema}`);
    const sep = (BASE_URL ?? '').includes('?') ? '&' : '?';
    const env = (): Record<string, string> => {
      const dir = mkdtempSync(join(tmpdir(), 'sqlgate-pg-'));
      dirs.push(dir);
      return {
        SQLGATE_DATA_DIR: dir,
        SQLGATE_DATABASE_URL: `${BASE_URL ?? ''}${sep}options=-c%20search_path%3D${schema}`,
        SQLGATE_DEMO_SCALE: TEST_DEMO_SCALE,
        SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        SQLGATE_RATE_LIMIT_PER_MINUTE: '1000000',
        // Eight clients share one key (one account): more than the default 4 queries in progress at once.
        SQLGATE_MAX_CONCURRENT_PER_ACCOUNT: '64',
        SQLGATE_LOG_LEVEL: 'warn',
      };
    };
    const envA = env();
    const key = (await runCli(['keys', 'create', '--account', 'x@y.z'], envA)).trim();
    // The receiver holds each request briefly so that a message delivered twice at once would overlap.
    const receiver = await startReceiver({ holdMs: 5 });
    try {
      const started = await Promise.allSettled([startGatewayProcess(envA), startGatewayProcess(env())]);
      const gateways = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      running.push(...gateways);
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      await createEndpointOver(gateways[0]?.url ?? '', key, receiver.url);

      const traces = new Set<string>();
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let i = next++; i < EVENTS; i = next++) {
          const g = gateways[i % 2] as GatewayProcess;
          traces.add((await postQuery(g.url, key, `SELECT ${i} AS i`)).trace_id);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      expect(traces.size).toBe(EVENTS);

      const ids = (): Set<string> => new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
      await receiver.waitFor(() => ids().size >= EVENTS, 30_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.concurrentDuplicates).toEqual([]);
      expect(ids().size).toBe(EVENTS);
      expect(receiver.received).toHaveLength(EVENTS);
      const delivered = new Set(
        receiver.received.map((r) => (JSON.parse(r.body) as { data: { trace_id: string } }).data.trace_id),
      );
      expect(delivered).toEqual(traces);
    } finally {
      await receiver.close();
    }
  }, 150_000);
});
