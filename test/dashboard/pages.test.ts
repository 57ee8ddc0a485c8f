import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertQueryLog } from '../../src/store/query-log.ts';
import type { QueryLogEntry } from '../../src/store/query-log.ts';
import { InjectClient, startServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

let server: TestServer;
let client: InjectClient;
let accountId = '';

const entry = (over: Partial<QueryLogEntry>): QueryLogEntry => ({
  accountId,
  keyId: '',
  traceId: 'a'.repeat(32),
  warehouse: 'bigquery',
  originalSql: 'SELECT a, b FROM t',
  rewrittenSql: 'SELECT a FROM t',
  rulesApplied: [],
  fallback: false,
  originalCost: 1,
  optimizedCost: 0.25,
  savings: 0.75,
  bytesOriginal: null,
  bytesOptimized: null,
  costMethod: 'model',
  durationMs: 12,
  rows: 3,
  status: 'ok',
  errorCode: null,
  ...over,
});

beforeAll(async () => {
  server = await startServer();
  client = new InjectClient(server.app);
  await client.signUp('pages@example.com');
  const { key, record } = await server.services.keys.create({ accountEmail: 'pages@example.com', name: 'k' });
  expect(key).toMatch(/^sg_/);
  accountId = record.accountId;
  const db = server.services.db;
  // 30 successful bigquery queries (two rules), 5 failed snowflake ones, 1 aurora query from 2020.
  for (let i = 0; i < 30; i++)
    await insertQueryLog(
      db,
      entry({ keyId: record.id, rulesApplied: ['projection-pruning', 'join-elimination'] }),
    );
  for (let i = 0; i < 5; i++)
    await insertQueryLog(
      db,
      entry({
        keyId: record.id,
        warehouse: 'snowflake',
        status: 'error',
        errorCode: 'query-failed',
        savings: null,
      }),
    );
  await insertQueryLog(
    db,
    entry({ keyId: record.id, warehouse: 'aurora', rulesApplied: ['join-elimination'] }),
  );
  await db.query(`UPDATE query_log SET created_at = '2020-03-04T10:00:00Z' WHERE warehouse = 'aurora'`);
});
afterAll(async () => {
  await server.close();
});

const count = (body: string) => /<p>([\d,]+) quer(?:y|ies)\.<\/p>/.exec(body)?.[1];
const rows = (body: string) => body.match(/href="\/queries\/\d+"/g)?.length ?? 0;

describe('dashboard pages', () => {
  it('filters the query log by warehouse, status and date, and paginates', async () => {
    const all = await client.get('/queries');
    expect(count(all.body)).toBe('36');
    expect(rows(all.body)).toBe(25);
    expect(all.body).toContain('Page 1 of 2');
    const p2 = await client.get('/queries?page=2');
    expect(rows(p2.body)).toBe(11);
    expect(p2.body).toContain('rel="prev"');
    expect(count((await client.get('/queries?warehouse=snowflake')).body)).toBe('5');
    expect(count((await client.get('/queries?status=error')).body)).toBe('5');
    expect(count((await client.get('/queries?status=ok&warehouse=bigquery')).body)).toBe('30');
    expect(count((await client.get('/queries?from=2020-03-04&to=2020-03-04')).body)).toBe('1');
    expect(count((await client.get('/queries?to=2020-03-03')).body)).toBe('0');
    // Filters survive paging links.
    expect((await client.get('/queries?warehouse=bigquery')).body).toContain(
      'href="/queries?warehouse=bigquery&amp;page=2"',
    );
  });

  it('shows totals, rules by savings and warehouses on the overview', async () => {
    const page = await client.get('/overview');
    expect(page.body).toContain('data-testid="total-queries">36<');
    // 31 queries saved 0.75 each; the failed ones saved nothing.
    expect(page.body).toContain('data-testid="total-saved">$23.25<');
    const rules = [
      ...page.body.matchAll(/<td><code>([\w-]+)<\/code><\/td>\s*<td class="num">(\d+)<\/td>/g),
    ].map((m) => [m[1], m[2]]);
    expect(rules).toEqual([
      ['join-elimination', '31'],
      ['projection-pruning', '30'],
    ]);
    // Queries per day, USD saved per day, cumulative USD saved.
    expect(page.body.match(/<svg\s+class="chart"/g)?.length).toBe(3);
  });

  it('shows a query with its diff, and 404 for ids that are not its own', async () => {
    const id = /href="\/queries\/(\d+)"/.exec((await client.get('/queries?warehouse=bigquery')).body)?.[1];
    const page = await client.get(`/queries/${id ?? ''}`);
    expect(page.statusCode).toBe(200);
    // Both texts pretty-printed (one clause per line): the dropped column is the only change.
    expect(page.body).toMatch(/<del>,\s+b\s*<\/del>/);
    expect(/data-testid="rewritten-sql">([\s\S]*?)<\/pre>/.exec(page.body)?.[1]).not.toContain('<ins>');
    expect(page.body).toContain('projection-pruning, join-elimination');
    for (const bad of ['/queries/999999', '/queries/abc', '/queries/1e3', '/keys/key_nope/revoke'])
      expect((await client.get(bad)).statusCode, bad).toBe(404);
  });

  it('validates the new key form', async () => {
    const csrf = client.csrf((await client.get('/keys')).body);
    expect((await client.post('/keys', { _csrf: csrf, name: '' })).statusCode).toBe(422);
    expect((await client.post('/keys', { _csrf: csrf, name: 'old', expires: '2001-01-01' })).statusCode).toBe(
      422,
    );
    const ok = await client.post('/keys', { _csrf: csrf, name: 'dated', expires: '2999-12-31' });
    expect(ok.statusCode).toBe(303); // POST/redirect/GET
    expect(ok.headers.location).toBe('/keys');
    expect((await client.get('/keys')).body).toContain('2999-12-31 23:59 UTC');
  });

  it('redirects signed-out visitors to sign-in, keeping where they were going', async () => {
    const anon = new InjectClient(server.app);
    const res = await anon.get('/queries?status=ok');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/signin?next=%2Fqueries%3Fstatus%3Dok');
    expect((await anon.get('/')).headers.location).toBe('/signin');
    expect((await client.get('/')).headers.location).toBe('/overview');
  });
});
