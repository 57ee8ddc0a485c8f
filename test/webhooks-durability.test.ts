import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DEMO_SCALE } from './helpers/gateway.ts';
import { createEndpointOver, postQuery, runCli, startGatewayProcess } from './helpers/process.ts';
import type { GatewayProcess } from './helpers/process.ts';
import { startReceiver } from './helpers/receiver.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqlgate-durable-'));
const running: GatewayProcess[] = [];
afterAll(async () => {
  for (const g of running) {
    g.proc.kill('SIGKILL');
    await g.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('webhook outbox durability', () => {
  it('delivers every event after the gateway is killed with undelivered events (SIGKILL) and restarted', async () => {
    const env = {
      SQLGATE_DATA_DIR: dir,
      SQLGATE_DEMO_SCALE: TEST_DEMO_SCALE,
      SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      SQLGATE_WEBHOOK_RETRY_BASE_MS: '50',
      SQLGATE_WEBHOOK_RETRY_MAX_DELAY_MS: '400',
      SQLGATE_LOG_LEVEL: 'warn',
    };
    const key = (await runCli(['keys', 'create', '--account', 'x@y.z'], env)).trim();
    expect(key).toMatch(/^sg_/);
    // The receiver's port, reserved and released: nothing listens there until the restart.
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();

    const first = await startGatewayProcess(env);
    running.push(first);
    const ep = await createEndpointOver(first.url, key, `http://127.0.0.1:${port}/hook/durable`);
    const traces = new Set<string>();
    for (let i = 0; i < 20; i++) traces.add((await postQuery(first.url, key, `SELECT ${i} AS i`)).trace_id);
    // Let some attempts fail against the closed port, then kill without any chance to clean up.
    await new Promise((r) => setTimeout(r, 300));
    first.proc.kill('SIGKILL');
    await first.exited;

    const receiver = await startReceiver({ port, path: '/hook/durable' });
    try {
      const second = await startGatewayProcess(env);
      running.push(second);
      const traceOf = (body: string): string =>
        (JSON.parse(body) as { data: { trace_id: string } }).data.trace_id;
      await receiver.waitFor((r) => new Set(r.map((x) => traceOf(x.body))).size === traces.size, 30_000);

      const byId = new Map<string, string>();
      for (const r of receiver.received) {
        const id = String(r.headers['webhook-id']);
        const body = r.body;
        // Duplicates are allowed (at-least-once) only as the same message: same webhook-id, same body.
        if (byId.has(id)) expect(byId.get(id)).toBe(body);
        byId.set(id, body);
        new Webhook(ep.secret).verify(body, {
          'webhook-id': id,
          'webhook-timestamp': String(r.headers['webhook-timestamp']),
          'webhook-signature': String(r.headers['webhook-signature']),
        });
      }
      expect(byId.size).toBe(traces.size);
      expect(new Set([...byId.values()].map(traceOf))).toEqual(traces);
      second.proc.kill('SIGTERM');
      await second.exited;
    } finally {
      await receiver.close();
    }
  }, 150_000);
});
