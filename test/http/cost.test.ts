import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAREHOUSE_NAMES } from '../../src/warehouses/index.ts';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

let gw: TestGateway;
let duck: DuckDBConnection;
beforeAll(async () => {
  gw = await startTestGateway();
  const instance = await DuckDBInstance.create(':memory:');
  duck = await instance.connect();
  await duck.run(`ATTACH '${join(gw.dataDir, 'demo.duckdb')}' AS demo (READ_ONLY)`);
  await duck.run('USE demo');
});
afterAll(async () => {
  duck.closeSync();
  await gw.close();
});

const cost = async (query: string, warehouse?: string) => {
  const qs = new URLSearchParams({ query, ...(warehouse ? { warehouse } : {}) });
  return gw.app.inject({ method: 'GET', url: `/cost?${qs.toString()}`, headers: gw.auth });
};

type OpenApiDoc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
  components: { securitySchemes: Record<string, unknown> };
  security: unknown;
  webhooks: Record<string, { post?: unknown }>;
};

const MIB = 1024 * 1024;
const TIB = 1024 ** 4;

/** BigQuery logical bytes of columns, computed independently with SQL over the demo tables. */
const bytesOf = async (table: string, columns: string[]): Promise<number> => {
  if (columns.length === 0) return 0;
  const types = await duck.runAndReadAll(
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '${table}'`,
  );
  const typeOf = new Map((types.getRowsJS() as string[][]).map((r) => [r[0] ?? '', r[1] ?? '']));
  const size = (c: string): string => {
    const t = typeOf.get(c) ?? '';
    if (t === 'VARCHAR') return `CASE WHEN ${c} IS NULL THEN 0 ELSE 2 + strlen(${c}) END`;
    if (t === 'BOOLEAN') return `CASE WHEN ${c} IS NULL THEN 0 ELSE 1 END`;
    if (t.startsWith('DECIMAL')) return `CASE WHEN ${c} IS NULL THEN 0 ELSE 16 END`;
    return `CASE WHEN ${c} IS NULL THEN 0 ELSE 8 END`;
  };
  const r = await duck.runAndReadAll(
    `SELECT (${columns.map((c) => `coalesce(sum(${size(c)}), 0)`).join(' + ')})::DOUBLE FROM ${table}`,
  );
  return Number(r.getRowsJS()[0]?.[0]);
};
const billed = (perTable: number[]): number =>
  Math.max(
    10 * MIB,
    perTable.reduce((a, b) => a + Math.max(10 * MIB, Math.ceil(b / MIB) * MIB), 0),
  );

describe('GET /cost — BigQuery byte model (local mode)', () => {
  const cases: Array<[string, string, Record<string, string[]>]> = [
    ['one column', 'SELECT l_comment FROM lineitem', { lineitem: ['l_comment'] }],
    ['LIMIT does not reduce bytes', 'SELECT l_comment FROM lineitem LIMIT 1', { lineitem: ['l_comment'] }],
    [
      'filter columns count',
      "SELECT l_orderkey FROM lineitem WHERE l_shipmode = 'AIR'",
      { lineitem: ['l_orderkey', 'l_shipmode'] },
    ],
    [
      'star reads every column',
      'SELECT * FROM orders',
      {
        orders: [
          'o_orderkey',
          'o_custkey',
          'o_orderstatus',
          'o_totalprice',
          'o_orderdate',
          'o_orderpriority',
          'o_clerk',
          'o_shippriority',
          'o_comment',
        ],
      },
    ],
    [
      'join with aliases',
      'SELECT o.o_orderdate, l.l_extendedprice FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey',
      { orders: ['o_orderdate', 'o_orderkey'], lineitem: ['l_extendedprice', 'l_orderkey'] },
    ],
    [
      'CTE',
      'WITH big AS (SELECT o_custkey, o_totalprice FROM orders WHERE o_totalprice > 1000) SELECT c_name, sum(o_totalprice) FROM big JOIN customer ON c_custkey = o_custkey GROUP BY c_name',
      { orders: ['o_custkey', 'o_totalprice'], customer: ['c_name', 'c_custkey'] },
    ],
    ['count(*) reads no column', 'SELECT count(*) FROM partsupp', { partsupp: [] }],
  ];
  it.each(cases)('%s', async (_name, query, tables) => {
    const res = await cost(query, 'bigquery');
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, unknown>>();
    const perTable = await Promise.all(Object.entries(tables).map(([t, cols]) => bytesOf(t, cols)));
    const scanned = perTable.reduce((a, b) => a + b, 0);
    expect((body.bytes_processed as { original: number }).original).toBe(scanned);
    expect((body.assumptions as Record<string, number>).bytes_billed).toBe(billed(perTable));
    expect(body.original_cost).toBeCloseTo((billed(perTable) / TIB) * 6.25, 9);
    expect(body.method).toBe('model');
    expect(body.currency).toBe('USD');
    expect(body.savings).toBe((body.original_cost as number) - (body.optimized_cost as number));
  });
});

describe('GET /cost — heuristics and errors', () => {
  it.each(['snowflake', 'aurora'])('%s: heuristic with assumptions; more columns cost more', async (w) => {
    const narrow = (await cost('SELECT l_orderkey FROM lineitem', w)).json<Record<string, unknown>>();
    const wide = (await cost('SELECT * FROM lineitem JOIN orders ON l_orderkey = o_orderkey', w)).json<
      Record<string, unknown>
    >();
    expect(narrow.method).toBe('heuristic');
    expect(Object.keys(narrow.assumptions as object).length).toBeGreaterThan(2);
    expect(wide.original_cost as number).toBeGreaterThan(narrow.original_cost as number);
    expect(Number.isNaN(narrow.savings)).toBe(false);
  });
  it('does not execute the query', async () => {
    const before = await gw.services.db.query<{ n: string }>('SELECT count(*)::text AS n FROM query_log');
    const res = await cost('SELECT count(*) FROM range(100000000000)');
    expect(res.statusCode).toBe(200);
    const after = await gw.services.db.query<{ n: string }>('SELECT count(*)::text AS n FROM query_log');
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
  });
  it('400 when the query parameter is missing', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/cost', headers: gw.auth });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });
  it('400 invalid-sql, 403 for writes, 422 unknown warehouse, 401 without key', async () => {
    expect((await cost('SELEC 1')).json<Record<string, unknown>>().type).toMatch(/invalid-sql$/);
    expect((await cost('DROP TABLE nation')).statusCode).toBe(403);
    expect((await cost('SELECT 1', 'redshift')).statusCode).toBe(422);
    expect((await gw.app.inject({ method: 'GET', url: '/cost?query=SELECT%201' })).statusCode).toBe(401);
  });
  it('accepts a long query in the URL up to the query limit', async () => {
    const query = `SELECT 1 AS x FROM nation WHERE n_name IN (${Array.from({ length: 3000 }, (_, i) => `'n${i}'`).join(', ')})`;
    const res = await cost(query);
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /warehouses, /openapi.json, health', () => {
  it('lists each warehouse with mode, dialect and pricing', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/warehouses', headers: gw.auth });
    const list = res.json<{ warehouses: Array<Record<string, unknown>> }>().warehouses;
    expect(list.map((w) => [w.name, w.mode, w.dialect])).toEqual([
      ['bigquery', 'local', 'bigquery'],
      ['snowflake', 'local', 'snowflake'],
      ['aurora', 'local', 'postgres'],
    ]);
    expect((list[0]?.pricing as Record<string, number>).usd_per_tib).toBe(6.25);
    // The function families (≈ 10 KB) by default, as local mode promises; `include=none` leaves them out.
    expect(list.every((w) => Array.isArray(w.local_functions))).toBe(true);
    const named = await gw.app.inject({
      method: 'GET',
      url: '/warehouses?include=local_functions',
      headers: gw.auth,
    });
    expect(named.json()).toEqual(res.json());
    const lean = await gw.app.inject({ method: 'GET', url: '/warehouses?include=none', headers: gw.auth });
    const short = lean.json<{ warehouses: Array<Record<string, unknown>> }>().warehouses;
    expect(short.some((w) => 'local_functions' in w)).toBe(false);
    expect(list.map(({ local_functions: _f, ...rest }) => rest)).toEqual(short);
    const bad = await gw.app.inject({
      method: 'GET',
      url: '/warehouses?include=everything',
      headers: gw.auth,
    });
    expect(bad.statusCode).toBe(400);
  });
  it('answers 304 to a client that revalidates the listing it has, and the listing to any other', async () => {
    const first = await gw.app.inject({ method: 'GET', url: '/warehouses', headers: gw.auth });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = (tag: string, url = '/warehouses') =>
      gw.app.inject({ method: 'GET', url, headers: { ...gw.auth, 'if-none-match': tag } });
    const not = await again(etag);
    expect(not.statusCode).toBe(304);
    expect(not.body).toBe('');
    expect(not.headers.etag).toBe(etag);
    expect((await again(`"other", W/${etag}`)).statusCode).toBe(304);
    expect((await again('"other"')).statusCode).toBe(200);
    // The lean listing is another representation: another tag.
    const full = await again(etag, '/warehouses?include=none');
    expect(full.statusCode).toBe(200);
    expect(full.headers.etag).not.toBe(etag);
    // Revalidating still needs a valid key.
    const anon = await gw.app.inject({
      method: 'GET',
      url: '/warehouses',
      headers: { 'if-none-match': etag },
    });
    expect(anon.statusCode).toBe(401);
  });
  it('serves OpenAPI 3.1.0 with the operations, bearer security, problems and the webhook', async () => {
    const doc = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApiDoc>();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/query', '/cost', '/verify']));
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.webhooks['/query/completed']?.post).toBeDefined();
    expect(doc.paths['/query']?.post?.responses['403']?.content?.['application/problem+json']).toBeDefined();
    expect(JSON.stringify(doc.paths)).not.toMatch(/\/v1\//);
  });
  it('documents the warehouse names as an enum from the registry, in the query body and the cost query', async () => {
    const doc = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown[] }>>;
    }>();
    const names = WAREHOUSE_NAMES;
    const body = JSON.stringify(doc.paths['/query']?.post?.requestBody);
    expect(body).toContain(`"enum":${JSON.stringify(names)}`);
    const param = doc.paths['/cost']?.get?.parameters?.find(
      (p) => (p as { name?: string }).name === 'warehouse',
    );
    expect(JSON.stringify(param)).toContain(`"enum":${JSON.stringify(names)}`);
    const refused = await cost('SELECT 1', 'redshift');
    expect(refused.json<{ allowed: string[]; code: string }>()).toMatchObject({
      code: 'unknown-warehouse',
      allowed: [...names],
    });
  });
  it('healthz and readyz need no key; metrics are Prometheus text', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await gw.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json<Record<string, unknown>>().status).toBe('ready');
    const metrics = await gw.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('sqlgate_http_request_duration_seconds');
  });
  it('unknown paths are 404 problems', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/nope', headers: gw.auth });
    expect(res.statusCode).toBe(404);
    expect(res.json<Record<string, unknown>>().type).toMatch(/not-found$/);
  });
});
