import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InjectClient, startServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

let server: TestServer;
let client: InjectClient;
let keyId = '';
let accountId = '';

beforeAll(async () => {
  server = await startServer();
  client = new InjectClient(server.app);
  await client.signUp('budgets@example.com');
  await client.get('/keys');
  await client.post('/keys', { _csrf: client.csrf(), name: 'etl' });
  const key = (await server.services.keys.list()).find((k) => k.name === 'etl');
  keyId = key?.id ?? '';
  accountId = key?.accountId ?? '';
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe('dashboard budgets page', () => {
  it('sets account and key limits through its forms (PRG), then shows them', async () => {
    const first = await client.get('/budgets');
    expect(first.statusCode, first.body).toBe(200);
    const saved = await client.post('/budgets/account', {
      _csrf: client.csrf(),
      usd_per_day: '2',
      usd_per_month: '',
      max_usd_per_query: '0.5',
      max_bytes_per_query: '',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/budgets?saved=1');
    expect(await server.services.guardrails.accountLimits(accountId)).toMatchObject({
      usd_per_day: 2,
      usd_per_month: null,
      max_usd_per_query: 0.5,
    });
    await client.get('/budgets');
    const key = await client.post(`/budgets/keys/${keyId}`, {
      _csrf: client.csrf(),
      usd_per_day: '1',
      usd_per_month: '10',
      max_usd_per_query: '',
      max_bytes_per_query: '1000000',
    });
    expect(key.statusCode).toBe(303);
    const page = await client.get('/budgets?saved=1');
    expect(page.body).toContain('The limits were saved.');
    expect(page.body).toMatch(/<meter\s+id="acct-day"[^>]*value="0\.00"/);
    expect(page.body).toMatch(
      /name="max_bytes_per_query"\s+type="number"\s+min="0"\s+step="1"\s+value="1000000"/,
    );
  });

  it('warns from 80 % of a budget and says when it is exhausted', async () => {
    const g = server.services.guardrails;
    await g.setAccountLimits(accountId, {});
    await g.setKeyLimits(accountId, keyId, { usd_per_day: 1 });
    const estimate = { usd: 0.85, method: 'model' as const, assumptions: {} };
    const a = await g.admit({ accountId, keyId }, estimate);
    await a.settle({ ran: true, savingsUsd: 0 });
    let page = await client.get('/budgets');
    expect(page.body).toMatch(new RegExp(`data-budget="${keyId}-day"`));
    expect(page.body).toContain('Warning: 85 % of this budget is used.');
    expect(page.body).not.toContain('Budget exhausted');
    const b = await g.admit({ accountId, keyId }, { ...estimate, usd: 0.15 });
    await b.settle({ ran: true, savingsUsd: 0 });
    page = await client.get('/budgets');
    expect(page.body).toContain('Budget exhausted: queries are refused until it resets.');
    // Below 80 %: no warning.
    await g.setKeyLimits(accountId, keyId, { usd_per_day: 100 });
    page = await client.get('/budgets');
    expect(page.body).not.toMatch(/Warning: \d+ %|Budget exhausted/);
  });

  it('refuses a bad value with 422 and another account’s key with 404, without CSRF 403', async () => {
    await client.get('/budgets');
    const bad = await client.post('/budgets/account', { _csrf: client.csrf(), usd_per_day: '-3' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('must be a number');
    const other = await server.services.keys.create({ accountEmail: 'someone-else@example.com' });
    await client.get('/budgets');
    const foreign = await client.post(`/budgets/keys/${other.record.id}`, {
      _csrf: client.csrf(),
      usd_per_day: '1',
    });
    expect(foreign.statusCode).toBe(404);
    expect(
      (await server.services.guardrails.keyLimits(other.record.accountId, other.record.id)).usd_per_day,
    ).toBeNull();
    const noCsrf = await client.post('/budgets/account', { usd_per_day: '1' });
    expect(noCsrf.statusCode).toBe(403);
  });
});
