import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyService } from '../src/services/api-keys.ts';
import { createWebhookService } from '../src/services/webhooks.ts';
import { openEmbeddedDb, openServerDb } from '../src/store/db.ts';
import type { Db, Queryable } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { createQueryRecorder } from '../src/store/query-log.ts';
import type { QueryLogEntry, QueryRecord } from '../src/store/query-log.ts';
import type { SpendCounter } from '../src/store/spend-counters.ts';
import { adminQuery } from './support/pg-schema.ts';

/** The embedded store, and a PostgreSQL server (own schema) when SQLGATE_TEST_POSTGRES_URL is set. */
const BASE_URL = process.env.SQLGATE_TEST_POSTGRES_URL;
const schema = `sg_${randomBytes(6).toString('hex')}`;
const admin = (sql: string): Promise<void> => adminQuery(BASE_URL!, sql);
const stores: string[] = ['embedded', ...(BASE_URL !== undefined ? ['postgres'] : [])];

/** The statements sent to the store, as test/store-round-trips.test.ts counts them. */
const counting = (db: Queryable): { db: Queryable; calls: string[] } => {
  const calls: string[] = [];
  return {
    calls,
    db: {
      query: (sql, params) => {
        calls.push(sql.replace(/\s+/g, ' ').trim().slice(0, 60));
        return db.query(sql, params);
      },
    },
  };
};

describe.each(stores)('query records written together (group commit), %s store', (store) => {
  let db: Db;
  /** Two accounts: `hooked` has an enabled webhook endpoint, `quiet` none. */
  let hooked: { accountId: string; keyId: string };
  let quiet: { accountId: string; keyId: string };

  beforeAll(async () => {
    if (store === 'postgres') {
      await admin(`CREATE SCHEMA ${schema}`);
      const sep = BASE_URL!.includes('?') ? '&' : '?';
      db = await openServerDb(`${BASE_URL}${sep}options=-c%20search_path%3D${schema}`);
    } else db = await openEmbeddedDb(undefined);
    await migrate(db);
    const keys = createApiKeyService(db);
    const a = (await keys.create({ accountEmail: 'batch-hooked@example.com' })).record;
    const b = (await keys.create({ accountEmail: 'batch-quiet@example.com' })).record;
    hooked = { accountId: a.accountId, keyId: a.id };
    quiet = { accountId: b.accountId, keyId: b.id };
    await createWebhookService({ db, allowPrivateNetworks: true }).createEndpoint(a.accountId, {
      url: 'http://127.0.0.1:9/hook',
    });
  });
  afterAll(async () => {
    await db.close();
    if (store === 'postgres') await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  const entry = (who: { accountId: string; keyId: string }, i: number): QueryLogEntry => ({
    accountId: who.accountId,
    keyId: who.keyId,
    traceId: randomBytes(16).toString('hex'),
    warehouse: 'bigquery',
    originalSql: `SELECT ${i}`,
    rewrittenSql: `SELECT ${i}`,
    rulesApplied: ['r1'],
    fallback: false,
    originalCost: 0.5,
    optimizedCost: 0.25,
    savings: 0.25,
    bytesOriginal: 1000 + i,
    bytesOptimized: 500 + i,
    costMethod: 'static',
    durationMs: 1.5,
    rows: i,
    status: 'ok',
    errorCode: null,
  });
  const countersOf = (who: { accountId: string; keyId: string }, day: Date): SpendCounter[] => [
    { scope: `a:${who.accountId}`, period: 'day', startsAt: day, accountId: who.accountId, capUsd: null },
    { scope: `k:${who.keyId}`, period: 'day', startsAt: day, accountId: who.accountId, capUsd: null },
  ];
  const record = (who: { accountId: string; keyId: string }, i: number, day: Date): QueryRecord => ({
    entry: entry(who, i),
    event: { id: randomUUID(), type: 'query.completed', payload: JSON.stringify({ i }) },
    spend: { counters: countersOf(who, day), usd: 0.125, savingsUsd: 0.25 },
  });

  it('N records queued together take one statement: N records, the events of accounts with an endpoint, the spend added once per counter', async () => {
    const { db: counted, calls } = counting(db);
    const recorder = createQueryRecorder(counted);
    const day = new Date(Date.UTC(2031, 0, 2));
    const records = Array.from({ length: 20 }, (_, i) => record(i % 2 === 0 ? hooked : quiet, i, day));
    const written = await Promise.all(records.map((r) => recorder.record(r)));

    expect(calls).toHaveLength(1);
    expect(new Set(written.map((w) => w.id)).size).toBe(20);
    // Each answer is its own record's: the id names the record with that trace id.
    const { rows: logged } = await db.query<{ id: string | number; trace_id: string; rows: string | number }>(
      `SELECT id, trace_id, rows FROM query_log WHERE id = ANY($1::bigint[])`,
      [written.map((w) => w.id)],
    );
    expect(logged).toHaveLength(20);
    const byId = new Map(logged.map((r) => [String(r.id), r]));
    records.forEach((r, i) => {
      expect(byId.get(written[i]!.id)).toMatchObject({ trace_id: r.entry.traceId });
      expect(Number(byId.get(written[i]!.id)?.rows)).toBe(i);
      expect(written[i]!.evented).toBe(i % 2 === 0);
    });
    // The events: one per record of the account with an endpoint, naming its record, with its own body.
    const { rows: events } = await db.query<{ id: string; query_log_id: string | number; payload: string }>(
      `SELECT id, query_log_id, payload FROM webhook_events WHERE query_log_id = ANY($1::bigint[])`,
      [written.map((w) => w.id)],
    );
    expect(events).toHaveLength(10);
    for (const e of events) {
      const i = written.findIndex((w) => w.id === String(e.query_log_id));
      expect(i % 2).toBe(0);
      expect(e.id).toBe(records[i]!.event!.id);
      expect(JSON.parse(e.payload)).toEqual({ i });
    }
    // The spend: each counter once per statement, with every query counted.
    const { rows: counters } = await db.query<{
      scope: string;
      used_usd: number;
      savings_usd: number;
      queries: string | number;
    }>(
      `SELECT scope, used_usd, savings_usd, queries FROM spend_counters WHERE starts_at = $1 ORDER BY scope`,
      [day.toISOString()],
    );
    expect(counters).toHaveLength(4);
    for (const c of counters) {
      expect(Number(c.queries)).toBe(10);
      expect(Number(c.used_usd)).toBeCloseTo(1.25, 9);
      expect(Number(c.savings_usd)).toBeCloseTo(2.5, 9);
    }
  });

  it('adds to counters that exist, and writes a lone record with the statement it always had', async () => {
    const { db: counted, calls } = counting(db);
    const recorder = createQueryRecorder(counted);
    const day = new Date(Date.UTC(2031, 0, 3));
    await Promise.all([0, 1, 2].map((i) => recorder.record(record(hooked, i, day))));
    const lone = await recorder.record(record(hooked, 3, day));
    expect(lone.evented).toBe(true);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatch(/^WITH log AS/);
    const { rows } = await db.query<{ queries: string | number; used_usd: number }>(
      `SELECT queries, used_usd FROM spend_counters WHERE starts_at = $1 AND scope = $2`,
      [day.toISOString(), `a:${hooked.accountId}`],
    );
    expect(Number(rows[0]?.queries)).toBe(4);
    expect(Number(rows[0]?.used_usd)).toBeCloseTo(0.5, 9);
  });

  it('a record the store refuses fails alone: the others of its batch are written on their own', async () => {
    const { db: counted, calls } = counting(db);
    const recorder = createQueryRecorder(counted);
    const day = new Date(Date.UTC(2031, 0, 4));
    const bad = record({ accountId: quiet.accountId, keyId: 'no-such-key' }, 1, day);
    const results = await Promise.allSettled([
      recorder.record(record(hooked, 0, day)),
      recorder.record(bad),
      recorder.record(record(quiet, 2, day)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The batch (refused as a whole), then each record on its own.
    expect(calls).toHaveLength(4);
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM query_log WHERE trace_id = ANY($1::text[])`,
      [[bad.entry.traceId]],
    );
    expect(rows[0]?.n).toBe(0);
    const { rows: counters } = await db.query<{ queries: string | number }>(
      `SELECT queries FROM spend_counters WHERE starts_at = $1 AND scope = $2`,
      [day.toISOString(), `a:${quiet.accountId}`],
    );
    expect(Number(counters[0]?.queries)).toBe(1);
  });

  /** The store, but its first `n` statements wait until `open()`: records meanwhile queue in the recorder. */
  const holding = (n: number): { held: Queryable; calls: string[]; open: () => void } => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => (open = r));
    const calls: string[] = [];
    const held: Queryable = {
      query: async (sql, params) => {
        calls.push(sql);
        if (calls.length <= n) await gate;
        return db.query(sql, params);
      },
    };
    return { held, calls, open };
  };

  it('records arriving while statements are on their way go together in the next one', async () => {
    // The first two statements are held until 30 more records have arrived.
    const { held, calls, open } = holding(2);
    const recorder = createQueryRecorder(held, { maxInFlight: 2 });
    const day = new Date(Date.UTC(2031, 0, 5));
    const first = recorder.record(record(quiet, 0, day));
    await new Promise((r) => setImmediate(r));
    const second = recorder.record(record(quiet, 1, day));
    await new Promise((r) => setImmediate(r));
    const rest = Array.from({ length: 30 }, (_, i) => recorder.record(record(quiet, i + 2, day)));
    await new Promise((r) => setImmediate(r));
    expect(calls).toHaveLength(2);
    open();
    await Promise.all([first, second, ...rest]);
    expect(calls).toHaveLength(3);
    const { rows } = await db.query<{ queries: string | number }>(
      `SELECT queries FROM spend_counters WHERE starts_at = $1 AND scope = $2`,
      [day.toISOString(), `k:${quiet.keyId}`],
    );
    expect(Number(rows[0]?.queries)).toBe(32);
  });

  it('by default one statement is on its way at a time: everything that arrives meanwhile goes in the next', async () => {
    // Fewer, larger statements: less work per record for the gateway and the store (bench/scale-out run 9).
    const { held, calls, open } = holding(1);
    const recorder = createQueryRecorder(held);
    const day = new Date(Date.UTC(2031, 0, 6));
    const first = recorder.record(record(quiet, 0, day));
    await new Promise((r) => setImmediate(r));
    const rest: Array<Promise<unknown>> = [];
    for (let turn = 0; turn < 3; turn++) {
      for (let i = 0; i < 10; i++) rest.push(recorder.record(record(quiet, 1 + turn * 10 + i, day)));
      await new Promise((r) => setImmediate(r));
    }
    expect(calls).toHaveLength(1);
    open();
    await Promise.all([first, ...rest]);
    expect(calls).toHaveLength(2);
    const { rows } = await db.query<{ queries: string | number }>(
      `SELECT queries FROM spend_counters WHERE starts_at = $1 AND scope = $2`,
      [day.toISOString(), `k:${quiet.keyId}`],
    );
    expect(Number(rows[0]?.queries)).toBe(31);
  });
});
