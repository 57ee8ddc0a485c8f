import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { isGatewayError } from '../src/core/errors.ts';
import { createGuardrails } from '../src/services/guardrails.ts';
import { openEmbeddedDb, openServerDb } from '../src/store/db.ts';
import type { Db } from '../src/store/db.ts';
import { listenKeyChanges } from '../src/store/key-changes.ts';
import { migrate } from '../src/store/migrate.ts';
import { writeSpendLimits } from '../src/store/spend-limits.ts';
import { adminQuery } from './support/pg-schema.ts';

const PG = process.env.SQLGATE_TEST_POSTGRES_URL;
if (PG === undefined)
  console.info('guardrails across replicas skipped: SQLGATE_TEST_POSTGRES_URL is not set');
const schema = `guardrails_rep_${randomBytes(5).toString('hex')}`;
const sep = (PG ?? '').includes('?') ? '&' : '?';
const opened: Db[] = [];

afterAll(async () => {
  for (const db of opened) await db.close();
  if (PG !== undefined) await adminQuery(PG, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

/**
 * The budget of an account, taken by two keys through two "replicas" (each its own connection pool and
 * guardrails service) at once: the store's one-statement reservation admits exactly what fits, and spend never
 * passes the budget. Estimates vary (fast-check style family of sizes) so no fixed count can pass by luck.
 */
const race = async (replicas: Db[]) => {
  const [first] = replicas;
  if (!first) throw new Error('no store');
  const accountId = `acc_${randomBytes(8).toString('hex')}`;
  await first.query('INSERT INTO accounts (id, email) VALUES ($1, $2)', [
    accountId,
    `${accountId}@example.com`,
  ]);
  const budget = 1;
  await writeSpendLimits(first, accountId, '', {
    maxUsdPerQuery: null,
    maxBytesPerQuery: null,
    usdPerDay: budget,
    usdPerMonth: null,
  });
  const services = replicas.map((db) => createGuardrails({ db }));
  const estimates = Array.from({ length: 40 }, (_, i) => 0.03 + ((i * 7919) % 13) / 100);
  const results = await Promise.all(
    estimates.map(async (usd, i) => {
      const g = services[i % services.length];
      if (!g) throw new Error('no service');
      try {
        const a = await g.admit(
          { accountId, keyId: `key_${i % 2}` },
          { usd, method: 'model', assumptions: {} },
        );
        await new Promise((r) => setTimeout(r, 5));
        await a.settle({ ran: true, savingsUsd: 0 });
        return usd;
      } catch (e) {
        if (isGatewayError(e) && e.code === 'budget-exhausted') return 0;
        throw e;
      }
    }),
  );
  const spent = results.reduce((a, b) => a + b, 0);
  const usage = await services[0]?.usage(accountId, 'day');
  expect(usage?.account.spent_usd).toBeCloseTo(spent, 9);
  expect(spent).toBeLessThanOrEqual(budget + 1e-9);
  // Refused ones were refused for a reason: what was left did not cover them at some point, so the budget
  // is (nearly) used: at least budget − the largest estimate.
  expect(spent).toBeGreaterThan(budget - Math.max(...estimates));
  expect(results.filter((r) => r === 0).length).toBeGreaterThan(0);
};

describe('budgets across concurrent requests', () => {
  it('embedded store: one process, 40 concurrent admissions', async () => {
    const db = await openEmbeddedDb(undefined);
    opened.push(db);
    await migrate(db);
    await race([db]);
  }, 60_000);

  it.skipIf(PG === undefined)(
    'PostgreSQL store: two replicas, 40 concurrent admissions',
    async () => {
      await adminQuery(PG ?? '', `CREATE SCHEMA ${schema}`);
      const url = `${PG ?? ''}${sep}options=-c%20search_path%3D${schema}`;
      const a = await openServerDb(url, 10);
      const b = await openServerDb(url, 10);
      opened.push(a, b);
      await migrate(a);
      await race([a, b]);
    },
    60_000,
  );
  it.skipIf(PG === undefined)(
    'PostgreSQL store: reservations and settlements of one account interleave without a deadlock',
    async () => {
      // Day and month budgets on the account and on both keys: each admission locks four counter rows and each
      // settlement the same four, so two statements that took them in different orders would deadlock.
      const url = `${PG ?? ''}${sep}options=-c%20search_path%3D${schema}`;
      const a = await openServerDb(url, 10);
      const b = await openServerDb(url, 10);
      opened.push(a, b);
      await adminQuery(PG ?? '', `CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await migrate(a);
      const accountId = `acc_${randomBytes(8).toString('hex')}`;
      await a.query('INSERT INTO accounts (id, email) VALUES ($1, $2)', [
        accountId,
        `${accountId}@example.com`,
      ]);
      const roomy = { maxUsdPerQuery: null, maxBytesPerQuery: null, usdPerDay: 1e6, usdPerMonth: 1e7 };
      for (const keyId of ['', 'key_0', 'key_1']) await writeSpendLimits(a, accountId, keyId, roomy);
      const services = [a, b].map((db) => createGuardrails({ db }));
      const n = 300;
      await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const g = services[i % 2];
          if (!g) throw new Error('no service');
          const admitted = await g.admit(
            { accountId, keyId: `key_${(i >> 1) % 2}` },
            { usd: 0.01, method: 'model', assumptions: {} },
          );
          await admitted.settle({ ran: true, savingsUsd: 0 });
        }),
      );
      const usage = await services[0]?.usage(accountId, 'day');
      expect(usage?.account.spent_usd).toBeCloseTo(n * 0.01, 6);
    },
    120_000,
  );
});

describe.skipIf(PG === undefined)('limits remembered by each replica (PostgreSQL store, change feed)', () => {
  it('a replica admits from memory; a limit set through another is in force there once announced', async () => {
    const url = `${PG ?? ''}${sep}options=-c%20search_path%3D${schema}`;
    await adminQuery(PG ?? '', `CREATE SCHEMA IF NOT EXISTS ${schema}`);
    const a = await openServerDb(url, 4);
    const b = await openServerDb(url, 4);
    opened.push(a, b);
    await migrate(a);
    const feeds = [await listenKeyChanges(url), await listenKeyChanges(url)];
    try {
      expect(feeds.every((f) => f.live)).toBe(true);
      let bCalls = 0;
      const countedB = {
        ...b,
        query: ((sql: string, p?: readonly unknown[]) => (bCalls++, b.query(sql, p))) as Db['query'],
      };
      const ga = createGuardrails({ db: a, changes: feeds[0] });
      const gb = createGuardrails({ db: countedB, changes: feeds[1] });
      const accountId = `acc_${randomBytes(8).toString('hex')}`;
      await a.query('INSERT INTO accounts (id, email) VALUES ($1, $2)', [
        accountId,
        `${accountId}@example.com`,
      ]);
      const who = { accountId, keyId: 'key_0' };
      const estimate = { usd: 0.5, method: 'model' as const, assumptions: {} };
      await (await gb.admit(who, estimate)).settle({ ran: true, savingsUsd: 0 });
      // Again: the limits come from memory; without a budget nothing is reserved (settle writes the spend).
      bCalls = 0;
      const again = await gb.admit(who, estimate);
      expect(bCalls).toBe(0);
      await again.settle({ ran: true, savingsUsd: 0 });
      expect(bCalls).toBe(1);
      expect((await ga.usage(accountId, 'day')).account).toMatchObject({ queries: 2, spent_usd: 1 });
      // A per-query limit below the estimate, set through A: B refuses once the announcement arrives.
      await writeSpendLimits(a, accountId, 'key_0', {
        maxUsdPerQuery: 0.1,
        maxBytesPerQuery: null,
        usdPerDay: null,
        usdPerMonth: null,
      });
      let refused: unknown;
      for (let i = 0; i < 250 && refused === undefined; i++) {
        refused = await gb.admit(who, estimate).then(
          async (x) => {
            await x.settle({ ran: false, savingsUsd: 0 });
            await new Promise((r) => setTimeout(r, 20));
            return undefined;
          },
          (e: unknown) => e,
        );
      }
      expect(isGatewayError(refused) && refused.code).toBe('cost-limit-exceeded');
      // And a budget: B reserves from then on.
      await writeSpendLimits(a, accountId, '', {
        maxUsdPerQuery: null,
        maxBytesPerQuery: null,
        usdPerDay: 0.75,
        usdPerMonth: null,
      });
      await writeSpendLimits(a, accountId, 'key_0', {
        maxUsdPerQuery: null,
        maxBytesPerQuery: null,
        usdPerDay: null,
        usdPerMonth: null,
      });
      let exhausted: unknown;
      for (let i = 0; i < 250 && exhausted === undefined; i++) {
        exhausted = await gb.admit(who, estimate).then(
          async (x) => {
            await x.settle({ ran: false, savingsUsd: 0 });
            await new Promise((r) => setTimeout(r, 20));
            return undefined;
          },
          // B may read the limits between the two writes (the budget set, the key's per-query limit not yet
          // lifted): that refusal is the old limit's, not yet the budget's.
          async (e: unknown) => {
            if (!(isGatewayError(e) && e.code === 'cost-limit-exceeded')) return e;
            await new Promise((r) => setTimeout(r, 20));
            return undefined;
          },
        );
      }
      // 1 USD already spent today, 0.75 the budget: nothing more fits.
      expect(isGatewayError(exhausted) && exhausted.code).toBe('budget-exhausted');
    } finally {
      for (const f of feeds) await f.close();
    }
  }, 60_000);
});
