import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedDb } from '../store/db.ts';
import type { Db } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { enqueueEvent, fanOutEvents, nextDueInMs } from '../store/webhook-deliveries.ts';
import { listDeliveries } from '../store/webhook-delivery-log.ts';
import { findEndpoint, insertEndpoint } from '../store/webhook-endpoints.ts';
import { createDispatcher } from './dispatcher.ts';
import { createForegroundGauge, quietMoment } from './foreground.ts';
import { DEFAULT_RETRY_POLICY } from './retry-policy.ts';
import type { Sender, SendOutcome } from './send-webhook.ts';

/** The dispatcher against the real (in-memory) store and a scripted sender: no network, no engine. */
let db: Db;
beforeAll(async () => {
  db = await openEmbeddedDb(undefined);
  await migrate(db);
  await db.query("INSERT INTO accounts (id, email) VALUES ('acc', 'a@example.com')");
});
afterAll(() => db.close());

/** A sender whose every attempt gets `statusCode` (null: the connection is refused); records the ids sent. */
const answering = (statusCode: number | null, sent: string[] = []): Sender => ({
  send: (m): Promise<SendOutcome> => {
    sent.push(m.webhookId);
    return Promise.resolve({
      statusCode,
      durationMs: 1,
      error: statusCode === null ? 'ECONNREFUSED: connect ECONNREFUSED' : null,
      responseBody: null,
      retryAfterMs: undefined,
    });
  },
  close: () => undefined,
});

/** An endpoint `id` of account `acc` and one event queued for it (`msg_<id>`), in `store`. */
const setup = async (id: string, store: Db = db) => {
  await insertEndpoint(store, {
    id,
    accountId: 'acc',
    url: 'http://203.0.113.1/',
    description: '',
    secret: 'whsec_AAAA',
  });
  await store.transaction((tx) =>
    enqueueEvent(
      tx,
      { id: `msg_${id}`, accountId: 'acc', type: 'query.completed', payload: '{}', queryLogId: null },
      id,
    ),
  );
};

const until = async (pred: () => Promise<boolean>, ms = 5_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('dispatcher', () => {
  it('disables an endpoint that has failed for the whole horizon, and records why', async () => {
    await setup('ep_dead');
    // The endpoint has been failing (no success) for longer than the horizon: its next failure disables it.
    await db.query(
      "UPDATE webhook_endpoints SET failing_since = now() - interval '2 hours' WHERE id = 'ep_dead'",
    );
    const d = createDispatcher({
      db,
      sender: answering(null),
      policy: { ...DEFAULT_RETRY_POLICY, baseMs: 20, horizonMs: 3_600_000 },
      pollMs: 20,
      concurrency: 4,
      timeoutMs: 100,
    });
    d.start();
    await until(async () => (await findEndpoint(db, 'acc', 'ep_dead'))?.enabled === false);
    await d.stop();
    const ep = await findEndpoint(db, 'acc', 'ep_dead');
    expect(ep?.disabledReason).toBe('failing for 2 h without a successful delivery');
    const [delivery] = await listDeliveries(db, 'acc', 'ep_dead', 10, 0);
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attempts).toHaveLength(1);
    expect(delivery?.attempts[0]?.error).toMatch(/^ECONNREFUSED/);
  });

  it('keeps an endpoint that has failed for less than the horizon', async () => {
    await setup('ep_young');
    await db.query(
      "UPDATE webhook_endpoints SET failing_since = now() - interval '30 minutes' WHERE id = 'ep_young'",
    );
    const d = createDispatcher({
      db,
      sender: answering(500),
      policy: { ...DEFAULT_RETRY_POLICY, baseMs: 20, horizonMs: 3_600_000 },
      pollMs: 20,
      concurrency: 4,
      timeoutMs: 100,
    });
    d.start();
    await until(async () => ((await listDeliveries(db, 'acc', 'ep_young', 1, 0))[0]?.attemptCount ?? 0) >= 2);
    await d.stop();
    expect((await findEndpoint(db, 'acc', 'ep_young'))?.enabled).toBe(true);
  });

  it('gives a delivery up past the horizon while the endpoint had successes in between', async () => {
    await setup('ep_flaky');
    // A success elsewhere resets the endpoint's failing streak: only this delivery gives up.
    const d = createDispatcher({
      db,
      sender: answering(503),
      policy: { ...DEFAULT_RETRY_POLICY, baseMs: 20, horizonMs: 300 },
      pollMs: 20,
      concurrency: 4,
      timeoutMs: 100,
    });
    const reset = setInterval(
      () => void db.query("UPDATE webhook_endpoints SET failing_since = now() WHERE id = 'ep_flaky'"),
      50,
    );
    d.start();
    await until(async () => (await listDeliveries(db, 'acc', 'ep_flaky', 1, 0))[0]?.status === 'failed');
    clearInterval(reset);
    await d.stop();
    const [delivery] = await listDeliveries(db, 'acc', 'ep_flaky', 1, 0);
    expect(delivery?.lastError).toMatch(/^HTTP 503; gave up after \d+ attempts/);
    expect(delivery?.lastStatusCode).toBe(503);
    expect((await findEndpoint(db, 'acc', 'ep_flaky'))?.enabled).toBe(true);
  });

  it('gives way to requests being served: claims nothing until the request ends, then delivers', async () => {
    await setup('ep_yield');
    const sent: string[] = [];
    const gauge = createForegroundGauge(60_000);
    const leave = gauge.enter();
    const d = createDispatcher({
      db,
      sender: answering(204, sent),
      policy: DEFAULT_RETRY_POLICY,
      pollMs: 20,
      concurrency: 4,
      timeoutMs: 100,
      quiet: quietMoment(gauge.buffer, 60_000),
    });
    d.start();
    d.wake();
    await new Promise((r) => setTimeout(r, 200));
    expect(sent).toEqual([]);
    leave();
    await until(async () => (await listDeliveries(db, 'acc', 'ep_yield', 1, 0))[0]?.status === 'succeeded');
    await d.stop();
    // (Earlier tests' deliveries still retrying go out too, once the request has ended.)
    expect(sent).toContain('msg_ep_yield');
  });

  it("fans a query's event out to the endpoints enabled now that existed when it was written", async () => {
    await db.query("INSERT INTO accounts (id, email) VALUES ('acc_fan', 'fan@example.com')");
    const endpoint = (id: string, createdAt: string, enabled: boolean) =>
      db.query(
        `INSERT INTO webhook_endpoints (id, account_id, url, secret, enabled, created_at)
         VALUES ($1, 'acc_fan', 'http://203.0.113.1/', 'whsec_AAAA', $2, $3::timestamptz)`,
        [id, enabled, createdAt],
      );
    await endpoint('ep_fan_on', '2026-01-01T00:00:00Z', true);
    await endpoint('ep_fan_off', '2026-01-01T00:00:00Z', false);
    await endpoint('ep_fan_later', '2026-03-01T00:00:00Z', true);
    await db.query(
      `INSERT INTO webhook_events (id, account_id, type, payload, fanned_out, created_at)
       VALUES ('msg_fan', 'acc_fan', 'query.completed', '{}', false, '2026-02-01T00:00:00Z')`,
    );
    expect(await fanOutEvents(db, 10)).toBe(1);
    expect(await fanOutEvents(db, 10)).toBe(0);
    const { rows } = await db.query<{ endpoint_id: string; due: boolean }>(
      `SELECT endpoint_id, next_attempt_at = '2026-02-01T00:00:00Z' AND retry_started_at = next_attempt_at AS due
       FROM webhook_deliveries WHERE event_id = 'msg_fan'`,
    );
    // Due since the event, its retry horizon counted from then too.
    expect(rows).toEqual([{ endpoint_id: 'ep_fan_on', due: true }]);
  });
});

describe('an idle dispatcher', () => {
  /** A store of its own (the tests above leave deliveries retrying), every statement and transaction counted. */
  let own: Db;
  let statements = 0;
  let counted: Db;
  beforeAll(async () => {
    own = await openEmbeddedDb(undefined);
    await migrate(own);
    await own.query("INSERT INTO accounts (id, email) VALUES ('acc', 'a@example.com')");
    counted = new Proxy(own, {
      get(target, key) {
        if (key === 'query' || key === 'transaction') statements++;
        const v: unknown = Reflect.get(target, key, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  });
  afterAll(() => own.close());

  const endpointWithEvent = async (id: string, opts: { inMs?: number; wake?: () => void } = {}) => {
    await setup(id, own);
    if (opts.inMs !== undefined)
      await own.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() + $2::double precision * interval '1 millisecond'
         WHERE endpoint_id = $1`,
        [id, opts.inMs],
      );
    opts.wake?.();
  };
  const statusOf = async (id: string) => (await listDeliveries(own, 'acc', id, 1, 0))[0];
  const dispatcher = (sender: Sender, idlePollMs: number, baseMs = 5_000) =>
    createDispatcher({
      db: counted,
      sender,
      policy: { ...DEFAULT_RETRY_POLICY, baseMs },
      pollMs: 10,
      idlePollMs,
      concurrency: 4,
      timeoutMs: 100,
    });
  const countFor = async (idlePollMs: number): Promise<number> => {
    const d = dispatcher(answering(204), idlePollMs);
    statements = 0;
    d.start();
    await new Promise((r) => setTimeout(r, 600));
    await d.stop();
    return statements;
  };

  it('asks the store once per rest, not every poll; without a rest it asks every poll', async () => {
    // 600 ms with nothing to do: one look (fan-out, claim, when is the next due), then a rest of a minute.
    expect(await countFor(60_000)).toBeLessThanOrEqual(4);
    // The same with rests as short as the poll: a look every 10 ms.
    expect(await countFor(10)).toBeGreaterThan(20);
  });

  it('wakes at once for a new event', async () => {
    const d = dispatcher(answering(204), 60_000);
    d.start();
    await new Promise((r) => setTimeout(r, 100));
    await endpointWithEvent('ep_idle_wake', { wake: () => d.wake() });
    await until(async () => (await statusOf('ep_idle_wake'))?.status === 'succeeded', 3_000);
    await d.stop();
  });

  it('rests only until the next delivery is due', async () => {
    // Written without a wake (as another process would), due 300 ms from now: the first look finds it not due
    // yet and rests until then, not for the minute.
    await endpointWithEvent('ep_idle_due', { inMs: 300 });
    const d = dispatcher(answering(204), 60_000);
    d.start();
    await until(async () => (await statusOf('ep_idle_due'))?.status === 'succeeded', 3_000);
    await d.stop();
  });

  it('ends its rest for a retry it scheduled itself', async () => {
    let calls = 0;
    const flaky: Sender = {
      send: () =>
        Promise.resolve({
          statusCode: ++calls === 1 ? 503 : 204,
          durationMs: 1,
          error: null,
          responseBody: null,
          retryAfterMs: undefined,
        }),
      close: () => undefined,
    };
    const d = dispatcher(flaky, 60_000, 50);
    d.start();
    await endpointWithEvent('ep_idle_retry', { wake: () => d.wake() });
    await until(async () => (await statusOf('ep_idle_retry'))?.status === 'succeeded', 3_000);
    await d.stop();
    expect(calls).toBe(2);
  });

  it('is told by the store when the next delivery is due: never, later, now, or now for an event to fan out', async () => {
    const fresh = await openEmbeddedDb(undefined);
    await migrate(fresh);
    await fresh.query("INSERT INTO accounts (id, email) VALUES ('acc', 'a@example.com')");
    expect(await nextDueInMs(fresh)).toBeNull();
    await setup('ep', fresh);
    await fresh.query("UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour'");
    const later = await nextDueInMs(fresh);
    expect(later).toBeGreaterThan(3_500_000);
    expect(later).toBeLessThanOrEqual(3_600_000);
    // A claimed row is its holder's: it does not make the next due sooner.
    await fresh.query(
      "INSERT INTO webhook_events (id, account_id, type, payload) VALUES ('msg_2', 'acc', 'query.completed', '{}')",
    );
    await fresh.query(
      `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, next_attempt_at, locked_until)
       VALUES ('dlv_2', 'msg_2', 'ep', 'acc', now() - interval '1 minute', now() + interval '1 minute')`,
    );
    expect(await nextDueInMs(fresh)).toBeGreaterThan(3_500_000);
    await fresh.query(
      "UPDATE webhook_deliveries SET locked_until = now() - interval '1 second' WHERE id = 'dlv_2'",
    );
    expect(await nextDueInMs(fresh)).toBe(0);
    await fresh.query("DELETE FROM webhook_deliveries WHERE id = 'dlv_2'");
    await fresh.query(
      "INSERT INTO webhook_events (id, account_id, type, payload, fanned_out) VALUES ('msg_3', 'acc', 'query.completed', '{}', false)",
    );
    expect(await nextDueInMs(fresh)).toBe(0);
    await fresh.close();
  });

  it("finds work only the store knows of (another process's) within its longest rest", async () => {
    const d = dispatcher(answering(204), 300);
    d.start();
    await new Promise((r) => setTimeout(r, 100));
    await endpointWithEvent('ep_idle_other');
    await until(async () => (await statusOf('ep_idle_other'))?.status === 'succeeded', 3_000);
    await d.stop();
  });
});
