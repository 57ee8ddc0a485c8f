import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import type { Services } from '../src/http/services.ts';
import { createForegroundGauge } from '../src/jobs/foreground.ts';
import type { ErrorSummary } from '../src/jobs/dispatcher-host.ts';
import { openDispatchingStore } from '../src/runtime.ts';
import { SAMPLE_QUERY_RESULT, queryCompletedPayload } from '../src/services/webhooks.ts';
import { enqueueEvent } from '../src/store/webhook-deliveries.ts';
import { startTestGateway } from './helpers/gateway.ts';
import type { TestGateway } from './helpers/gateway.ts';
import { forkReceiver } from './helpers/receiver-process.ts';
import type { ReceiverProcess } from './helpers/receiver-process.ts';

let gw: TestGateway;
let receiver: ReceiverProcess;
beforeAll(async () => {
  gw = await startTestGateway({ SQLGATE_WEBHOOK_POLL_MS: '50' });
  receiver = await forkReceiver();
  gw.services.webhookDispatcher.start();
});
afterAll(async () => {
  await receiver.close();
  await gw.close();
});

const arrived = async (n: number, timeoutMs = 10_000): Promise<number[]> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const a = await receiver.arrivals();
    if (a.length >= n || Date.now() > until) return a;
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Queues one `query.completed` event per id for the account's endpoints, in one transaction. */
const enqueueEvents = (services: Services, accountId: string, ids: readonly string[]) =>
  services.db.transaction(async (tx) => {
    for (const id of ids)
      await enqueueEvent(tx, {
        id,
        accountId,
        type: 'query.completed',
        payload: queryCompletedPayload(SAMPLE_QUERY_RESULT, new Date()),
        queryLogId: null,
      });
  });

describe('webhook delivery on the embedded store', () => {
  it('runs off the main thread: deliveries go out while the main thread is blocked', async () => {
    const { record } = await gw.services.keys.create({ accountEmail: 'blocked@example.com' });
    await gw.services.webhooks.createEndpoint(record.accountId, { url: receiver.url });
    let n = 0;
    const enqueue = (count: number) =>
      enqueueEvents(
        gw.services,
        record.accountId,
        Array.from({ length: count }, () => `msg_blocked${n++}`),
      );
    // Warm up (first connection, first signature), then block this thread while 30 deliveries are due.
    await enqueue(1);
    gw.services.webhookDispatcher.wake();
    expect(await arrived(1)).toHaveLength(1);
    await enqueue(30);
    gw.services.webhookDispatcher.wake();
    const until = Date.now() + 1_500;
    while (Date.now() < until); // the main thread's event loop does nothing meanwhile
    const during = (await arrived(31)).filter((at) => at <= until);
    // With the dispatcher on the main thread, none could be sent before `until`.
    expect(during).toHaveLength(31);
  });
});

describe('delivery gives way to requests being served', () => {
  it('the worker claims nothing while a request is young, and goes ahead after its bound', async () => {
    // Long bounds, so that the test sees the wait: a request counts for 4 s, delivery waits 2 s at most.
    const slow = await startTestGateway({ SQLGATE_WEBHOOK_POLL_MS: '50', SQLGATE_WEBHOOK_YIELD_MS: '2000' });
    try {
      slow.services.webhookDispatcher.start();
      const gauge = slow.services.foreground;
      if (!gauge) throw new Error('the gateway has no foreground gauge');
      const { record } = await slow.services.keys.create({ accountEmail: 'yield@example.com' });
      await slow.services.webhooks.createEndpoint(record.accountId, { url: receiver.url });
      const before = (await receiver.arrivals()).length;
      const enqueue = (id: string) => enqueueEvents(slow.services, record.accountId, [id]);
      const leave = gauge.enter();
      // A claim that passed the gate just before the request began has ended before the event is queued.
      await new Promise((r) => setTimeout(r, 50));
      await enqueue('msg_yield1');
      slow.services.webhookDispatcher.wake();
      // Without the gate it arrives within milliseconds.
      await new Promise((r) => setTimeout(r, 500));
      expect(await receiver.arrivals()).toHaveLength(before);
      const held = await arrived(before + 1);
      leave();
      expect(held).toHaveLength(before + 1);
      // Once no request is young, at once.
      await enqueue('msg_yield2');
      slow.services.webhookDispatcher.wake();
      expect(await arrived(before + 2)).toHaveLength(before + 2);
    } finally {
      await slow.close();
    }
  });

  it('the app counts a request from its start until its response is done', async () => {
    const gauge = createForegroundGauge(60_000);
    const app = await buildApp(gw.config, { ...gw.services, foreground: gauge }, { logger: false });
    try {
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const { key } = await gw.services.keys.create({ accountEmail: 'counted@example.com' });
      const req = request(`${base}/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
      const response = new Promise<number>((resolve, reject) => {
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
      });
      req.write('{"original":[{"a":1}],');
      const until = Date.now() + 5_000;
      while (gauge.active() === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(gauge.active()).toBe(1);
      req.end('"rewritten":[{"a":1}]}');
      expect(await response).toBe(200);
      while (gauge.active() !== 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(gauge.active()).toBe(0);
    } finally {
      await app.close();
    }
  });
});

describe('the dispatcher in the worker', () => {
  it('reports its errors to the main thread (name and message), and stops and closes cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlgate-wh-err-'));
    try {
      const errors: ErrorSummary[] = [];
      const { db, dispatcher } = await openDispatchingStore(
        loadConfig({ SQLGATE_DATA_DIR: dir, SQLGATE_WEBHOOK_POLL_MS: '50' }),
        (e) => errors.push(e),
      );
      await db.query('ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_gone');
      dispatcher.start();
      const until = Date.now() + 5_000;
      while (errors.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(errors[0]?.name).toBe('error');
      expect(errors[0]?.message).toContain('webhook_deliveries');
      await dispatcher.stop();
      await db.close();
      dispatcher.wake(); // after close: nothing to wake, no error
      await dispatcher.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
