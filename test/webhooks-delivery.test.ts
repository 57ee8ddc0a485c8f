import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../src/services/webhooks.ts';
import { bearer, startTestGateway } from './helpers/gateway.ts';
import type { TestGateway } from './helpers/gateway.ts';
import { startReceiver } from './helpers/receiver.ts';
import type { Received, Receiver } from './helpers/receiver.ts';

let gw: TestGateway;
const receivers: Receiver[] = [];
let n = 0;

beforeAll(async () => {
  // Fast retries and a short timeout so that retry paths run in well under a second.
  gw = await startTestGateway({
    SQLGATE_WEBHOOK_RETRY_BASE_MS: '30',
    SQLGATE_WEBHOOK_TIMEOUT_MS: '300',
    SQLGATE_WEBHOOK_POLL_MS: '50',
    SQLGATE_LOG_LEVEL: 'error',
  });
  gw.services.webhookDispatcher.start();
  // The first query warms the engines up, blocking the event loop for a while: not during a 300 ms timeout.
  const { key } = await gw.services.keys.create({ accountEmail: 'warmup@example.com' });
  for (let i = 0; i < 3; i++)
    await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: bearer(key),
      payload: { query: 'SELECT 1' },
    });
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => gw.close());

/** A fresh account with one endpoint at a fresh receiver (or at `url`). */
const setup = async (url?: string) => {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const { key, record } = await gw.services.keys.create({ accountEmail: `user${++n}@example.com` });
  const created = await gw.app.inject({
    method: 'POST',
    url: '/webhooks/endpoints',
    headers: bearer(key),
    payload: { url: url ?? receiver.url },
  });
  const ep = created.json<{ id: string; secret: string }>();
  const query = async (sql = 'SELECT o_orderstatus, count(*) AS n FROM orders GROUP BY o_orderstatus') => {
    const r = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: bearer(key),
      payload: { query: sql },
    });
    expect(r.statusCode).toBe(200);
    return r.json<Record<string, unknown> & { trace_id: string; cost: Record<string, unknown> }>();
  };
  const deliveries = () => gw.services.webhooks.listDeliveries(record.accountId, ep.id);
  return { receiver, key, accountId: record.accountId, ep, query, deliveries };
};

const verify = (secret: string, r: Received): unknown =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

const waitDelivery = async (
  get: () => Promise<WebhookDelivery[]>,
  pred: (d: WebhookDelivery) => boolean,
  timeoutMs = 5_000,
): Promise<WebhookDelivery> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = (await get()).find(pred);
    if (d) return d;
    if (Date.now() > until) throw new Error(`delivery state not reached: ${JSON.stringify(await get())}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('query.completed delivery', () => {
  it('is signed, carries the query response and cost, and arrives promptly', async () => {
    const s = await setup();
    const res = await s.query();
    const answered = Date.now();
    await s.receiver.waitFor((r) => r.length === 1, 2_000);
    const got = s.receiver.received[0] as Received;
    expect(got.at - answered).toBeLessThan(1_000);
    expect(verify(s.ep.secret, got)).toBeTruthy();
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got)).toThrow();
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('sqlgate/1.0.0');
    expect(String(got.headers['webhook-id'])).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(String(got.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    const body = JSON.parse(got.body) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(body.type).toBe('query.completed');
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
    expect(body.data).toEqual({
      trace_id: res.trace_id,
      warehouse: res.warehouse,
      rewritten_query: res.rewritten_query,
      duration_ms: res.duration_ms,
      rows: res.rows,
      rules_applied: res.rules_applied,
      original_cost: res.cost.original_cost,
      optimized_cost: res.cost.optimized_cost,
      savings: res.cost.savings,
      currency: 'USD',
    });
    const d = await waitDelivery(s.deliveries, (x) => x.status === 'succeeded');
    expect(d).toMatchObject({ attempt_count: 1, last_status_code: 200 });
    expect(d.attempts[0]).toMatchObject({ status_code: 200, response_body: 'ok', error: null });
  });

  it('does not hold up POST /query while the receiver is slow', async () => {
    const s = await setup();
    s.receiver.reply = (_r, res) => setTimeout(() => res.end('late'), 2_000);
    const t = performance.now();
    await s.query('SELECT 1 AS x');
    expect(performance.now() - t).toBeLessThan(1_000);
    await s.receiver.waitFor((r) => r.length === 1, 2_000);
  });
});

describe('retries', () => {
  it('retries after a 500, with the same webhook-id, and logs both attempts', async () => {
    const s = await setup();
    s.receiver.reply = (r, res) => {
      res.writeHead(s.receiver.received.indexOf(r) === 0 ? 500 : 200);
      res.end(s.receiver.received.indexOf(r) === 0 ? 'boom' : 'ok');
    };
    await s.query();
    await s.receiver.waitFor((r) => r.length === 2, 3_000);
    const [a, b] = s.receiver.received as [Received, Received];
    expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
    expect(verify(s.ep.secret, b)).toBeTruthy();
    const d = await waitDelivery(s.deliveries, (x) => x.status === 'succeeded');
    expect(d.attempts.map((x) => x.status_code)).toEqual([500, 200]);
    expect(d.attempts[0]).toMatchObject({ error: 'HTTP 500', response_body: 'boom' });
    expect(d.attempts[0]?.next_attempt_at).not.toBeNull();
  });

  it('retries after a timeout', async () => {
    const s = await setup();
    s.receiver.reply = (r, res) => {
      if (s.receiver.received.indexOf(r) === 0) setTimeout(() => res.end('too late'), 1_000);
      else res.end('ok');
    };
    await s.query();
    const d = await waitDelivery(s.deliveries, (x) => x.status === 'succeeded', 4_000);
    expect(d.attempts[0]?.status_code).toBeNull();
    expect(d.attempts[0]?.error).toMatch(/timed out after 300 ms/);
    expect(d.attempts[0]?.duration_ms).toBeGreaterThanOrEqual(290);
  });

  it('retries after a refused connection, until the receiver is up', async () => {
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();
    const path = `/hook/refused-${n}`;
    const s = await setup(`http://127.0.0.1:${port}${path}`);
    await s.query();
    await waitDelivery(s.deliveries, (x) => x.attempt_count >= 2);
    const [pending] = await s.deliveries();
    expect(pending?.status).toBe('pending');
    expect(pending?.attempts[0]?.error).toMatch(/ECONNREFUSED/);
    const late = await startReceiver({ port, path });
    receivers.push(late);
    await late.waitFor((r) => r.length === 1, 5_000);
    await waitDelivery(s.deliveries, (x) => x.status === 'succeeded');
  });

  it('honours Retry-After', async () => {
    const s = await setup();
    s.receiver.reply = (r, res) => {
      if (s.receiver.received.indexOf(r) === 0) res.writeHead(503, { 'retry-after': '1' });
      res.end();
    };
    await s.query();
    await s.receiver.waitFor((r) => r.length === 2, 4_000);
    const [a, b] = s.receiver.received as [Received, Received];
    // With a 30 ms base the retry would come within ~30 ms; the receiver asked for 1 s.
    expect(b.at - a.at).toBeGreaterThanOrEqual(950);
  });

  it('410 Gone disables the endpoint and records why', async () => {
    const s = await setup();
    s.receiver.reply = (_r, res) => {
      res.writeHead(410);
      res.end('gone');
    };
    await s.query();
    await waitDelivery(s.deliveries, (x) => x.status === 'failed');
    const ep = await gw.services.webhooks.getEndpoint(s.accountId, s.ep.id);
    expect(ep).toMatchObject({ enabled: false, disabled_reason: 'the receiver answered 410 Gone' });
    await s.query();
    await new Promise((r) => setTimeout(r, 300));
    // No new message after the 410 (earlier attempts of the same message may have been retried).
    expect(new Set(s.receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(await s.deliveries()).toHaveLength(1);
  });
});

describe('redelivery, test events and secret rotation', () => {
  it('redelivers a message with the same webhook-id', async () => {
    const s = await setup();
    await s.query();
    const d = await waitDelivery(s.deliveries, (x) => x.status === 'succeeded');
    const r = await gw.app.inject({
      method: 'POST',
      url: `/webhooks/deliveries/${d.id}/redeliver`,
      headers: bearer(s.key),
    });
    expect(r.statusCode).toBe(202);
    await s.receiver.waitFor((x) => x.length === 2, 2_000);
    const [a, b] = s.receiver.received as [Received, Received];
    expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
    expect(b.body).toBe(a.body);
    const after = await waitDelivery(s.deliveries, (x) => x.attempt_count >= 2 && x.status === 'succeeded');
    expect(after.attempts.length).toBe(after.attempt_count);
  });

  it('sends a test event', async () => {
    const s = await setup();
    const r = await gw.app.inject({
      method: 'POST',
      url: `/webhooks/endpoints/${s.ep.id}/test`,
      headers: bearer(s.key),
    });
    expect(r.statusCode).toBe(202);
    await s.receiver.waitFor((x) => x.length === 1, 2_000);
    const got = s.receiver.received[0] as Received;
    expect(verify(s.ep.secret, got)).toMatchObject({ type: 'query.completed', data: { test: true } });
  });

  it('after a rotation, both the old and the new secret verify during the overlap', async () => {
    const s = await setup();
    const rotated = await gw.app.inject({
      method: 'POST',
      url: `/webhooks/endpoints/${s.ep.id}/rotate-secret`,
      headers: bearer(s.key),
    });
    const fresh = rotated.json<{ secret: string }>().secret;
    await s.query();
    await s.receiver.waitFor((x) => x.length === 1, 2_000);
    const got = s.receiver.received[0] as Received;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(s.ep.secret, got)).toBeTruthy();
    expect(verify(fresh, got)).toBeTruthy();
  });
});
