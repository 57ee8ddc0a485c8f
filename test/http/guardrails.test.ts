import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';
import { adminQuery } from '../support/pg-schema.ts';
import { startReceiver } from '../helpers/receiver.ts';

const PG = process.env.SQLGATE_TEST_POSTGRES_URL;
if (PG === undefined)
  console.info('guardrails on a PostgreSQL state store skipped: SQLGATE_TEST_POSTGRES_URL is not set');
const schema = `guardrails_${randomBytes(5).toString('hex')}`;
const sep = (PG ?? '').includes('?') ? '&' : '?';

const QUERY = 'SELECT n_name FROM nation WHERE n_regionkey = 1';
const CONCURRENT = 20;

describe.each([
  { store: 'embedded', env: {} as Record<string, string> },
  {
    store: 'postgres',
    env: PG ? { SQLGATE_DATABASE_URL: `${PG}${sep}options=-c%20search_path%3D${schema}` } : undefined,
  },
])('guardrails on the $store state store', ({ store, env }) => {
  let g: TestGateway;
  let estimate = 0;
  let keyId = '';

  beforeAll(async () => {
    if (env === undefined) return;
    if (store === 'postgres') await adminQuery(PG!, `CREATE SCHEMA ${schema}`);
    g = await startTestGateway({
      ...env,
      SQLGATE_MAX_CONCURRENT_PER_ACCOUNT: '64',
      SQLGATE_RATE_LIMIT_PER_MINUTE: '100000',
      SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      SQLGATE_WEBHOOK_POLL_MS: '100',
    });
    g.services.webhookDispatcher.start();
    const keys = await g.services.keys.list();
    keyId = keys[0]?.id ?? '';
    const cost = await g.app.inject({
      method: 'GET',
      url: `/cost?query=${encodeURIComponent(QUERY)}`,
      headers: g.auth,
    });
    estimate = cost.json<{ optimized_cost: number }>().optimized_cost;
  }, 120_000);
  afterAll(async () => {
    await g?.close();
    if (store === 'postgres' && PG) await adminQuery(PG, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  const put = (url: string, body: unknown, headers = g.auth) =>
    g.app.inject({ method: 'PUT', url, headers, payload: body as object });
  const query = (headers = g.auth) =>
    g.app.inject({ method: 'POST', url: '/query', headers, payload: { query: QUERY } });

  it.skipIf(env === undefined)('sets and reads limits per key and per account', async () => {
    const none = await g.app.inject({ method: 'GET', url: `/keys/${keyId}/limits`, headers: g.auth });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toMatchObject({ key_id: keyId, max_usd_per_query: null, usd_per_day: null });
    const set = await put(`/keys/${keyId}/limits`, { usd_per_month: 12.5, max_bytes_per_query: 1e12 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ usd_per_month: 12.5, max_bytes_per_query: 1e12, usd_per_day: null });
    const acct = await put('/account/limits', { usd_per_day: 3 });
    expect(acct.json()).toMatchObject({ usd_per_day: 3, usd_per_month: null });
    // A PUT replaces: what is left out is no limit.
    await put(`/keys/${keyId}/limits`, {});
    await put('/account/limits', {});
    const back = await g.app.inject({ method: 'GET', url: '/account/limits', headers: g.auth });
    expect(back.json()).toMatchObject({ usd_per_day: null });
    const bad = await put('/account/limits', { usd_per_day: -1 });
    expect(bad.statusCode).toBe(400);
  });

  it.skipIf(env === undefined)("another account's key id, or an unknown one, is 404", async () => {
    const other = await g.services.keys.create({ accountEmail: `other-${store}@example.com` });
    const auth = { authorization: `Bearer ${other.key}` };
    for (const id of [keyId, 'key_00000000000000000000']) {
      const get = await g.app.inject({ method: 'GET', url: `/keys/${id}/limits`, headers: auth });
      expect(get.statusCode).toBe(404);
      expect(get.headers['content-type']).toMatch(/problem\+json/);
      const set = await put(`/keys/${id}/limits`, { usd_per_day: 0 }, auth);
      expect(set.statusCode).toBe(404);
    }
    // Nothing was written to the other account's key.
    const mine = await g.app.inject({ method: 'GET', url: `/keys/${keyId}/limits`, headers: g.auth });
    expect(mine.json()).toMatchObject({ usd_per_day: null });
    // Its own key works.
    const own = await put(`/keys/${other.record.id}/limits`, { usd_per_day: 1 }, auth);
    expect(own.statusCode).toBe(200);
  });

  it.skipIf(env === undefined)(
    'a per-query limit below the estimate refuses with 422 cost-limit-exceeded',
    async () => {
      expect(estimate).toBeGreaterThan(0);
      for (const [scope, url] of [
        ['key', `/keys/${keyId}/limits`],
        ['account', '/account/limits'],
      ] as const) {
        await put(url, { max_usd_per_query: estimate / 2 });
        const res = await query();
        expect(res.statusCode).toBe(422);
        const p = res.json<Record<string, unknown>>();
        expect(p.type).toMatch(/cost-limit-exceeded$/);
        expect(p.limit).toEqual({ max_usd_per_query: estimate / 2, scope });
        expect((p.estimate as { usd: number }).usd).toBeCloseTo(estimate, 12);
        await put(url, { max_bytes_per_query: 1024 });
        const bytes = await query();
        expect(bytes.statusCode).toBe(422);
        expect(bytes.json<{ limit: unknown }>().limit).toEqual({ max_bytes_per_query: 1024, scope });
        await put(url, { max_usd_per_query: estimate * 2, max_bytes_per_query: 1e15 });
        expect((await query()).statusCode).toBe(200);
        await put(url, {});
      }
    },
  );

  it.skipIf(env === undefined)(
    `${CONCURRENT} concurrent requests never spend past the daily budget, then 429 budget-exhausted with the reset`,
    async () => {
      const receiver = await startReceiver();
      try {
        const hook = await g.app.inject({
          method: 'POST',
          url: '/webhooks/endpoints',
          headers: g.auth,
          payload: { url: receiver.url },
        });
        const secret = hook.json<{ secret: string }>().secret;
        // A fresh key: its own counters start at zero whatever the tests before spent.
        const acct = (await g.services.keys.list())[0]?.accountId ?? '';
        const fresh = await g.services.keys.createForAccount(acct, `budget-${store}`, null);
        const auth = { authorization: `Bearer ${fresh.key}` };
        const fits = 5;
        const budget = estimate * fits + estimate / 2;
        expect((await put(`/keys/${fresh.record.id}/limits`, { usd_per_day: budget })).statusCode).toBe(200);
        const results = await Promise.all(Array.from({ length: CONCURRENT }, () => query(auth)));
        const ok = results.filter((r) => r.statusCode === 200);
        const refused = results.filter((r) => r.statusCode === 429);
        expect(ok.length + refused.length).toBe(CONCURRENT);
        expect(ok.length).toBe(fits);
        const p = refused[0]?.json() as Record<string, unknown>;
        expect(p.type).toMatch(/budget-exhausted$/);
        const reset = new Date(String(p.reset_at));
        const tomorrow = new Date();
        tomorrow.setUTCHours(24, 0, 0, 0);
        expect(reset.toISOString()).toBe(tomorrow.toISOString());
        expect(Number(refused[0]?.headers['retry-after'])).toBeGreaterThan(0);
        expect(p.budget).toMatchObject({ scope: 'key', period: 'day', usd: budget });

        const usage = await g.app.inject({ method: 'GET', url: '/usage?period=day', headers: auth });
        expect(usage.statusCode).toBe(200);
        const u = usage.json<{
          keys: { key_id: string; spent_usd: number; queries: number; used_pct: number }[];
        }>();
        const mine = u.keys.find((k) => k.key_id === fresh.record.id);
        expect(mine?.queries).toBe(fits);
        expect(mine?.spent_usd).toBeLessThanOrEqual(budget + 1e-12);
        expect(mine?.spent_usd).toBeCloseTo(estimate * fits, 12);

        // 5.5 estimates of budget, 5 spent: 90 % → one signed event at 80 %; nothing twice.
        await receiver.waitFor((r) => r.some((x) => x.body.includes('budget.threshold_reached')), 20_000);
        const events = receiver.received.filter((x) => x.body.includes('budget.threshold_reached'));
        expect(events).toHaveLength(1);
        const e = events[0]!;
        const body = new Webhook(secret).verify(e.body, {
          'webhook-id': String(e.headers['webhook-id']),
          'webhook-timestamp': String(e.headers['webhook-timestamp']),
          'webhook-signature': String(e.headers['webhook-signature']),
        }) as { data: Record<string, unknown> };
        expect(body.data).toMatchObject({
          scope: 'key',
          key_id: fresh.record.id,
          period: 'day',
          threshold_pct: 80,
          budget_usd: budget,
        });
        // Raising the budget lets one more run; reaching 100 % is announced once.
        await put(`/keys/${fresh.record.id}/limits`, { usd_per_day: estimate * (fits + 1) });
        expect((await query(auth)).statusCode).toBe(200);
        expect((await query(auth)).statusCode).toBe(429);
        await receiver.waitFor((r) => r.some((x) => x.body.includes('"threshold_pct":100')), 20_000);
        await new Promise((r) => setTimeout(r, 500));
        expect(receiver.received.filter((x) => x.body.includes('budget.threshold_reached'))).toHaveLength(2);
      } finally {
        await receiver.close();
      }
    },
    120_000,
  );
});
