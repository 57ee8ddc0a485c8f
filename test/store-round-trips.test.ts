import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.ts';
import type { App } from '../src/http/app.ts';
import { queryServiceFor } from '../src/runtime.ts';
import { createApiKeyService } from '../src/services/api-keys.ts';
import { createGuardrails } from '../src/services/guardrails.ts';
import { createWebhookService } from '../src/services/webhooks.ts';
import type { Db, Queryable } from '../src/store/db.ts';
import { fanOutEvents } from '../src/store/webhook-deliveries.ts';
import { bearer, startTestGateway } from './helpers/gateway.ts';
import type { TestGateway } from './helpers/gateway.ts';
import { adminQuery } from './support/pg-schema.ts';

/**
 * Every call to the store is a round trip (on the embedded store, a message to its worker thread, which also
 * runs webhook deliveries): POST /query must make as few as possible. Counted here: each statement, and a
 * transaction's BEGIN and COMMIT.
 */
const countingDb = (db: Db): { db: Db; calls: string[] } => {
  const calls: string[] = [];
  const wrap = (q: Queryable): Queryable => ({
    query: <T extends object = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => {
      calls.push(sql.replace(/\s+/g, ' ').trim().slice(0, 60));
      return q.query<T>(sql, params);
    },
  });
  const counted: Db = {
    ...wrap(db),
    kind: db.kind,
    transaction: async (fn) => {
      calls.push('BEGIN');
      try {
        return await db.transaction((tx) => fn(wrap(tx)));
      } finally {
        calls.push('COMMIT');
      }
    },
    background: () => db.background(),
    close: () => db.close(),
  };
  return { db: counted, calls };
};

/** The embedded store, and a PostgreSQL server (own schema) when SQLGATE_TEST_POSTGRES_URL is set. */
const BASE_URL = process.env.SQLGATE_TEST_POSTGRES_URL;
const schema = `sg_${randomBytes(6).toString('hex')}`;
const admin = (sql: string): Promise<void> => adminQuery(BASE_URL!, sql);
const stores: [string, Record<string, string>][] = [['embedded', {}]];
if (BASE_URL !== undefined) {
  const sep = BASE_URL.includes('?') ? '&' : '?';
  stores.push([
    'postgres',
    { SQLGATE_DATABASE_URL: `${BASE_URL}${sep}options=-c%20search_path%3D${schema}` },
  ]);
}

describe.each(stores)('POST /query on the %s store', (store, env) => {
  let gw: TestGateway;
  let app: App;
  let calls: string[];
  let counted: Db;

  beforeAll(async () => {
    if (store === 'postgres') await admin(`CREATE SCHEMA ${schema}`);
    // Concurrent queries of one account all run (the group-commit test below): no 429 at the default of 4.
    gw = await startTestGateway({ ...env, SQLGATE_MAX_CONCURRENT_PER_ACCOUNT: '100' });
    ({ db: counted, calls } = countingDb(gw.services.db));
    const keys = createApiKeyService(counted);
    const webhooks = createWebhookService({ db: counted, allowPrivateNetworks: true });
    const queries = queryServiceFor(gw.config, counted, gw.services.warehouses, webhooks.queryOutbox, {
      sqlPool: gw.services.sqlPool,
    });
    app = await buildApp(
      gw.config,
      { ...gw.services, db: counted, keys, queries, webhooks },
      { logger: false },
    );
  });
  afterAll(async () => {
    await app.close();
    await gw.close();
    if (store === 'postgres') await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  const postQuery = (key: string, query: string) =>
    app.inject({ method: 'POST', url: '/query', headers: bearer(key), payload: { query } });

  /** Store calls made by one POST /query. */
  const callsFor = async (key: string, query = 'SELECT 1 AS one'): Promise<{ status: number; n: number }> => {
    calls.length = 0;
    const res = await postQuery(key, query);
    return { status: res.statusCode, n: calls.length };
  };

  describe('store round trips', () => {
    /** After a key's first use: the embedded store answers it from memory (one process owns that store). */
    const later = store === 'embedded' ? 1 : 2;

    it('takes 2 calls on first use (key lookup recording its use; query record + outbox in one statement), then fewer on the embedded store', async () => {
      const { key, record } = await gw.services.keys.create({ accountEmail: 'trips@example.com' });
      // First use (records last use), then a later one (within the minute: no write).
      expect(await callsFor(key)).toEqual({ status: 200, n: 2 });
      expect(calls.some((c) => /BEGIN|COMMIT/.test(c))).toBe(false);
      expect(await callsFor(key)).toEqual({ status: 200, n: later });
      // An error is logged in one statement too.
      expect(await callsFor(key, 'SELECT FROM WHERE')).toMatchObject({ n: later });
      const [k] = await gw.services.keys.list(record.accountId);
      expect(k?.lastUsedAt).not.toBeNull();
      expect(Math.abs((k?.lastUsedAt?.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
    });

    it(`takes ${store === 'embedded' ? 1 : 2} call with 3 webhook endpoints, and writes the event with the record (the dispatcher writes its 3 deliveries)`, async () => {
      const { key, record } = await gw.services.keys.create({ accountEmail: 'trips-hooks@example.com' });
      for (const i of [1, 2, 3]) {
        await gw.services.webhooks.createEndpoint(record.accountId, { url: `http://127.0.0.1:9/h${i}` });
      }
      const disabled = await gw.services.webhooks.createEndpoint(record.accountId, {
        url: 'http://127.0.0.1:9/off',
      });
      await gw.services.webhooks.updateEndpoint(record.accountId, disabled.id, { enabled: false });
      expect(await callsFor(key)).toEqual({ status: 200, n: 2 });
      expect(await callsFor(key)).toEqual({ status: 200, n: later });
      const counts = async () =>
        (
          await gw.services.db.query<{ logs: number; events: number; pending: number; deliveries: number }>(
            `SELECT (SELECT count(*)::int FROM query_log WHERE account_id = $1) AS logs,
               (SELECT count(*)::int FROM webhook_events e JOIN query_log q ON q.id = e.query_log_id
                WHERE e.account_id = $1) AS events,
               (SELECT count(*)::int FROM webhook_events WHERE account_id = $1 AND NOT fanned_out) AS pending,
               (SELECT count(*)::int FROM webhook_deliveries WHERE account_id = $1) AS deliveries`,
            [record.accountId],
          )
        ).rows[0];
      expect(await counts()).toEqual({ logs: 2, events: 2, pending: 2, deliveries: 0 });
      // The dispatcher's fan-out: one delivery per enabled endpoint, once, whoever runs it how often.
      expect(await fanOutEvents(gw.services.db, 100)).toBe(2);
      expect(await fanOutEvents(gw.services.db, 100)).toBe(0);
      expect(await counts()).toEqual({ logs: 2, events: 2, pending: 0, deliveries: 6 });
    });

    it('N concurrent queries: N records and N outbox events, in fewer statements than queries (group commit)', async () => {
      const { key, record } = await gw.services.keys.create({ accountEmail: 'trips-batch@example.com' });
      await gw.services.webhooks.createEndpoint(record.accountId, { url: 'http://127.0.0.1:9/batch' });
      expect((await postQuery(key, 'SELECT 1')).statusCode).toBe(200); // the key's first use
      calls.length = 0;
      const n = 40;
      const answers = await Promise.all(Array.from({ length: n }, () => postQuery(key, 'SELECT 1 AS one')));
      expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: n }, () => 200));
      const records = calls.filter((c) => /^WITH (log|x) AS/.test(c)).length;
      expect(records).toBeLessThan(n);
      const { rows } = await gw.services.db.query<{ logs: number; events: number; traces: number }>(
        `SELECT count(*)::int AS logs, count(e.id)::int AS events, count(DISTINCT q.trace_id)::int AS traces
         FROM query_log q LEFT JOIN webhook_events e ON e.query_log_id = q.id WHERE q.account_id = $1`,
        [record.accountId],
      );
      expect(rows[0]).toEqual({ logs: n + 1, events: n + 1, traces: n + 1 });
      // Each answer's trace id has its own record.
      const traces = answers.map((a) => a.json<{ trace_id: string }>().trace_id);
      const { rows: found } = await gw.services.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM query_log WHERE trace_id = ANY($1::text[])',
        [traces],
      );
      expect(found[0]?.n).toBe(n);
    });

    it('still checks the key on every request: a revoked key fails at once', async () => {
      const { key, record } = await gw.services.keys.create({ accountEmail: 'trips-revoked@example.com' });
      expect((await postQuery(key, 'SELECT 1')).statusCode).toBe(200);
      expect(await gw.services.keys.revoke(record.id)).toBe(true);
      const res = await postQuery(key, 'SELECT 1');
      expect(res.statusCode).toBe(401);
      expect(res.json<{ detail: string }>().detail).toMatch(/revoked/);
    });
  });
});

describe('API keys answered from memory (embedded store)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({});
  });
  afterAll(async () => {
    await gw.close();
  });

  it('a key revoked while its lookup is in flight is not remembered: the next request fails', async () => {
    const { key, record } = await gw.services.keys.create({ accountEmail: 'race@example.com' });
    // The lookup is sent first, the revocation while it is in flight (PGlite answers them in that order).
    const first = gw.services.keys.authenticate(key);
    const revoked = gw.services.keys.revoke(record.id);
    await expect(first).resolves.toMatchObject({ keyId: record.id });
    expect(await revoked).toBe(true);
    await expect(gw.services.keys.authenticate(key)).rejects.toThrow(/revoked/);
  });

  it('expiry is checked on every use of a remembered key', async () => {
    let now = new Date();
    const keys = createApiKeyService(gw.services.db, () => now);
    const { key, record } = await keys.create({
      accountEmail: 'expiring@example.com',
      expiresAt: new Date(now.getTime() + 60_000),
    });
    await expect(keys.authenticate(key)).resolves.toMatchObject({ keyId: record.id });
    now = new Date(now.getTime() + 61_000);
    await expect(keys.authenticate(key)).rejects.toThrow(/expired/);
  });

  it('a remembered key still records its use once a minute, behind request handling', async () => {
    let now = new Date();
    const keys = createApiKeyService(gw.services.db, () => now);
    const { key, record } = await keys.create({ accountEmail: 'used@example.com' });
    await keys.authenticate(key);
    const lastUsed = async (): Promise<number | undefined> =>
      (await keys.list(record.accountId))[0]?.lastUsedAt?.getTime();
    const first = await lastUsed();
    expect(first).toBeDefined();
    // Within the minute: nothing is written (the store's clock decides; force the row older instead).
    await gw.services.db.query(
      "UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1",
      [record.id],
    );
    const aged = await lastUsed();
    now = new Date(now.getTime() + 61_000);
    await keys.authenticate(key);
    for (let i = 0; i < 100 && (await lastUsed()) === aged; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await lastUsed()).toBeGreaterThan(aged ?? 0);
  });

  it('services on one store share what they remember: a revocation through one is seen by the other', async () => {
    const other = createApiKeyService(gw.services.db);
    const { key, record } = await other.create({ accountEmail: 'shared@example.com' });
    await expect(gw.services.keys.authenticate(key)).resolves.toMatchObject({ keyId: record.id });
    await expect(other.authenticate(key)).resolves.toMatchObject({ keyId: record.id });
    expect(await other.revoke(record.id)).toBe(true);
    await expect(gw.services.keys.authenticate(key)).rejects.toThrow(/revoked/);
  });
});

describe('POST /query under guardrails (embedded store)', () => {
  let gw: TestGateway;
  let app: App;
  let calls: string[];
  let guard: ReturnType<typeof createGuardrails>;
  beforeAll(async () => {
    gw = await startTestGateway({});
    let counted: Db;
    ({ db: counted, calls } = countingDb(gw.services.db));
    guard = createGuardrails({ db: counted });
    const queries = queryServiceFor(gw.config, counted, gw.services.warehouses, undefined, {
      sqlPool: gw.services.sqlPool,
      guard,
    });
    app = await buildApp(
      gw.config,
      { ...gw.services, db: counted, queries, guardrails: guard },
      { logger: false },
    );
  });
  afterAll(async () => {
    await app.close();
    await gw.close();
  });
  const callsFor = async (key: string): Promise<{ status: number; n: number }> => {
    calls.length = 0;
    const res = await app.inject({
      method: 'POST',
      url: '/query',
      headers: bearer(key),
      payload: { query: 'SELECT 1' },
    });
    return { status: res.statusCode, n: calls.length };
  };

  it('without a budget: limits remembered, nothing reserved, the spend written with the record (1 call)', async () => {
    const { key, record } = await gw.services.keys.create({ accountEmail: 'guarded-trips@example.com' });
    // First use: the key and the limits are read once.
    expect(await callsFor(key)).toEqual({ status: 200, n: 2 });
    expect(await callsFor(key)).toEqual({ status: 200, n: 1 });
    expect(calls[0]).toMatch(/^WITH log AS/);
    const usage = await guard.usage(record.accountId, 'day');
    expect(usage.account.queries).toBe(2);
    expect(usage.keys[0]?.queries).toBe(2);
    // A budget set (through this process) is in force for the next query: it reserves, then settles.
    await guard.setAccountLimits(record.accountId, { usd_per_day: 1000 });
    expect((await callsFor(key)).status).toBe(200);
    expect(calls.filter((c) => c.startsWith('INSERT INTO spend_counters'))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith('WITH locked AS'))).toHaveLength(1);
    expect((await guard.usage(record.accountId, 'day')).account).toMatchObject({
      queries: 3,
      budget_usd: 1000,
    });
    // And removed again: back to one call.
    await guard.setAccountLimits(record.accountId, {});
    await callsFor(key);
    expect(await callsFor(key)).toEqual({ status: 200, n: 1 });
    expect((await guard.usage(record.accountId, 'day')).account.queries).toBe(5);
  });
});
