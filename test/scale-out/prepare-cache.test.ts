import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/core/catalog.ts';
import { prepareCacheOf, prepareQuery } from '../../src/services/prepare-query.ts';
import type { RewriteSettings } from '../../src/services/prepare-query.ts';
import type { Warehouse } from '../../src/warehouses/registry.ts';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

/**
 * The rewrite + estimate cache in front of the SQL worker pool: a repeated query does not reach the pool, and
 * gives what a fresh preparation gives; a new catalog version, other settings or another warehouse miss.
 */
let gw: TestGateway;
let poolCalls = 0;
beforeAll(async () => {
  gw = await startTestGateway();
  const pool = gw.services.sqlPool;
  const prepare = pool.prepare.bind(pool);
  (pool as { prepare: typeof pool.prepare }).prepare = (...args) => {
    poolCalls++;
    return prepare(...args);
  };
}, 120_000);
afterAll(() => gw.close());

const SETTINGS: RewriteSettings = {
  budgetMs: 5_000,
  disabled: new Set(),
  maxQueryBytes: 1 << 20,
  maxQueryTokens: 100_000,
  maxListItems: 10_000,
  parseTimeoutMs: 10_000,
};

/** A family of queries: aggregates, filters, joins, rewritable shapes (DISTINCT under IN, unused joins, …). */
const QUERIES = [
  'SELECT 1',
  'select l_returnflag, sum(l_quantity) from lineitem group by l_returnflag',
  "SELECT count(*) FROM orders WHERE o_orderdate >= DATE '1995-01-01' AND o_orderstatus = 'F'",
  'SELECT o_orderkey FROM orders WHERE o_custkey IN (SELECT DISTINCT c_custkey FROM customer)',
  'SELECT DISTINCT n_name FROM nation JOIN region ON n_regionkey = r_regionkey',
  'SELECT * FROM (SELECT c_name, c_acctbal FROM customer ORDER BY c_acctbal DESC) t LIMIT 5',
  'SELECT p_brand, avg(p_retailprice) AS a FROM part GROUP BY p_brand HAVING avg(p_retailprice) > 100',
  "SELECT 'a  b' AS s, '\n' AS nl",
];

/** A view of the warehouse whose adapter gives `catalog()` (to change the catalog version) and its own cache. */
const withCatalog = (w: Warehouse, catalog: () => Promise<Catalog>): Warehouse => ({
  ...w,
  adapter: { ...w.adapter, introspect: () => catalog() },
});

describe('prepare cache', () => {
  it.each(['bigquery', 'snowflake', 'aurora'])(
    '%s: a repeated query skips the pool and equals a fresh preparation',
    async (name) => {
      const w = gw.services.warehouses.get(name);
      for (const sql of QUERIES) {
        for (const translate of [false, true]) {
          const before = poolCalls;
          const first = await prepareQuery(w, sql, SETTINGS, gw.services.sqlPool, { translate });
          const again = await prepareQuery(w, `\n  ${sql}  \r\n`, SETTINGS, gw.services.sqlPool, {
            translate,
          });
          expect(poolCalls - before).toBe(first.fallback || !first.parsed ? 2 : 1);
          // A fresh preparation (another cache: a view of the warehouse) gives the same, bar the echoed text.
          const real = await w.adapter.introspect();
          const fresh = await prepareQuery(
            withCatalog(w, () => Promise.resolve(real)),
            sql,
            SETTINGS,
            gw.services.sqlPool,
            { translate },
          );
          const { sql: _a, ...cached } = again;
          const { sql: _b, ...recomputed } = fresh;
          const echo = (p: typeof cached) =>
            p.rewrittenSql.trim() === sql.trim() ? { ...p, rewrittenSql: '' } : p;
          expect(echo(cached)).toEqual(echo(recomputed));
          expect(again.sql).toBe(`\n  ${sql}  \r\n`);
        }
      }
    },
    120_000,
  );

  it('a new catalog version, other settings or the other rewrite mode miss', async () => {
    const w = gw.services.warehouses.get('bigquery');
    let catalog = await w.adapter.introspect();
    const view = withCatalog(w, () => Promise.resolve(catalog));
    const sql = 'SELECT l_shipmode, count(*) FROM lineitem GROUP BY l_shipmode';
    const calls = async (f: () => Promise<unknown>) => {
      const before = poolCalls;
      await f();
      return poolCalls - before;
    };
    const run = (s: RewriteSettings = SETTINGS, rewrite = true) =>
      prepareQuery(view, sql, s, gw.services.sqlPool, { translate: false, rewrite });
    expect(await calls(() => run())).toBe(1);
    expect(await calls(() => run())).toBe(0);
    const hits = prepareCacheOf(view).hits;
    catalog = { ...catalog }; // read anew: another version
    expect(await calls(() => run())).toBe(1);
    expect(await calls(() => run())).toBe(0);
    expect(await calls(() => run({ ...SETTINGS, disabled: new Set(['distinct-in-subquery']) }))).toBe(1);
    expect(await calls(() => run(SETTINGS, false))).toBe(1);
    expect(prepareCacheOf(view).hits).toBe(hits + 1);
  });

  it('refused queries are never kept: each is checked again', async () => {
    const w = gw.services.warehouses.get('bigquery');
    for (const sql of ['DELETE FROM orders', 'SELEC 1', 'SELECT 1; SELECT 2']) {
      const before = poolCalls;
      for (let i = 0; i < 2; i++)
        await expect(
          prepareQuery(w, sql, SETTINGS, gw.services.sqlPool, { translate: false }),
        ).rejects.toThrow();
      expect(poolCalls - before).toBe(2);
    }
  });

  it('GET /cost of a repeated query answers the same from the cache', async () => {
    const url = `/cost?warehouse=bigquery&query=${encodeURIComponent('select o_orderpriority, count(*) from orders group by 1')}`;
    const a = await gw.app.inject({ method: 'GET', url, headers: gw.auth });
    const before = poolCalls;
    const b = await gw.app.inject({ method: 'GET', url, headers: gw.auth });
    expect(a.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
    expect(poolCalls).toBe(before);
  });
});

describe('GET /cost by exact text (the report remembered in front of the prepare cache)', () => {
  /**
   * The warehouse's adapter gives `catalog()` until the returned function puts it back: through `introspect`
   * and, as an adapter holding its catalog in memory does, at once through `introspectNow` (the path a
   * remembered report takes without a promise).
   */
  const swapCatalog = (name: string, catalog: () => Catalog): (() => void) => {
    const adapter = gw.services.warehouses.get(name).adapter as {
      introspect: Warehouse['adapter']['introspect'];
      introspectNow?: Warehouse['adapter']['introspectNow'];
    };
    const [own, ownNow] = [adapter.introspect, adapter.introspectNow];
    adapter.introspect = () => Promise.resolve(catalog());
    adapter.introspectNow = () => catalog();
    return () => {
      adapter.introspect = own;
      adapter.introspectNow = ownNow;
    };
  };
  /** The catalog with every table's measured sizes multiplied by `k`: another version, other prices. */
  const scaled = (c: Catalog, k: number): Catalog => ({
    tables: new Map(
      [...c.tables].map(([n, t]) => [
        n,
        t.stats
          ? {
              ...t,
              stats: {
                ...t.stats,
                rows: t.stats.rows * k,
                columnBytes: Object.fromEntries(
                  Object.entries(t.stats.columnBytes).map(([c2, b]) => [c2, b * k]),
                ),
                partitions: t.stats.partitions?.map((p) => ({
                  ...p,
                  rows: p.rows * k,
                  columnBytes: Object.fromEntries(
                    Object.entries(p.columnBytes).map(([c2, b]) => [c2, b * k]),
                  ),
                })),
              },
            }
          : t,
      ]),
    ),
  });

  it('a repeated text reaches neither the pool nor the prepare cache; a changed catalog is priced anew', async () => {
    const real = await gw.services.warehouses.get('bigquery').adapter.introspect();
    let catalog = real;
    const restore = swapCatalog('bigquery', () => catalog);
    try {
      const sql = 'SELECT l_orderkey, l_comment FROM lineitem WHERE l_quantity > 7';
      const url = `/cost?warehouse=bigquery&query=${encodeURIComponent(sql)}`;
      const get = async () => {
        const res = await gw.app.inject({ method: 'GET', url, headers: gw.auth });
        expect(res.statusCode).toBe(200);
        return res.json<{ original_cost: number; bytes_processed: { original: number } }>();
      };
      const a = await get();
      const cache = prepareCacheOf(gw.services.warehouses.get('bigquery'));
      const [calls, lookups] = [poolCalls, cache.hits + cache.misses];
      expect(await get()).toEqual(a);
      expect([poolCalls, cache.hits + cache.misses]).toEqual([calls, lookups]);
      // The catalog read anew with other sizes: the remembered report no longer answers.
      catalog = scaled(real, 1000);
      const b = await get();
      expect(b.bytes_processed.original).toBeGreaterThan(a.bytes_processed.original);
      expect(b.original_cost).toBeGreaterThan(a.original_cost);
      expect(await get()).toEqual(b);
      catalog = real;
      expect(await get()).toEqual(a);
    } finally {
      restore();
    }
  });

  it('an adapter that cannot tell its catalog without a wait still answers a repeated text from memory', async () => {
    const adapter = gw.services.warehouses.get('snowflake').adapter as {
      introspectNow?: Warehouse['adapter']['introspectNow'];
    };
    const own = adapter.introspectNow;
    adapter.introspectNow = () => undefined;
    try {
      const url = `/cost?warehouse=snowflake&query=${encodeURIComponent('SELECT count(*) FROM part WHERE p_size > 3')}`;
      const a = await gw.app.inject({ method: 'GET', url, headers: gw.auth });
      const cache = prepareCacheOf(gw.services.warehouses.get('snowflake'));
      const [calls, lookups] = [poolCalls, cache.hits + cache.misses];
      const b = await gw.app.inject({ method: 'GET', url, headers: gw.auth });
      expect(a.statusCode).toBe(200);
      expect(b.body).toBe(a.body);
      expect([poolCalls, cache.hits + cache.misses]).toEqual([calls, lookups]);
    } finally {
      adapter.introspectNow = own;
    }
  });

  it('texts that differ only in spacing are remembered apart, each echoed as sent; errors are never kept', async () => {
    const base = 'select n_name from nation';
    for (const sql of [base, ` ${base}`, `${base}\n`]) {
      const url = `/cost?warehouse=aurora&query=${encodeURIComponent(sql)}`;
      const a = await gw.app.inject({ method: 'GET', url, headers: gw.auth });
      const b = await gw.app.inject({ method: 'GET', url, headers: gw.auth });
      expect(a.statusCode).toBe(200);
      expect(b.body).toBe(a.body);
    }
    const before = poolCalls;
    for (let i = 0; i < 2; i++) {
      const res = await gw.app.inject({
        method: 'GET',
        url: `/cost?query=${encodeURIComponent('DELETE FROM orders')}`,
        headers: gw.auth,
      });
      expect(res.statusCode).toBe(403);
    }
    expect(poolCalls - before).toBe(2);
  });

  it('a revoked key is refused even for a remembered text', async () => {
    const url = `/cost?query=${encodeURIComponent('SELECT count(*) FROM region')}`;
    const { key, record } = await gw.services.keys.create({ accountEmail: 'cost-cache@example.test' });
    const auth = { authorization: `Bearer ${key}` };
    expect((await gw.app.inject({ method: 'GET', url, headers: auth })).statusCode).toBe(200);
    expect((await gw.app.inject({ method: 'GET', url, headers: auth })).statusCode).toBe(200);
    await gw.services.keys.revoke(record.id, record.accountId);
    expect((await gw.app.inject({ method: 'GET', url, headers: auth })).statusCode).toBe(401);
  });
});

describe('prepare cache under a burst', () => {
  it('fifty identical queries at once make one preparation, and all get its answer', async () => {
    const w = gw.services.warehouses.get('snowflake');
    const real = await w.adapter.introspect();
    const view = withCatalog(w, () => Promise.resolve(real));
    const sql = 'SELECT c_mktsegment, max(c_acctbal) FROM customer GROUP BY c_mktsegment';
    const before = poolCalls;
    const all = await Promise.all(
      Array.from({ length: 50 }, () =>
        prepareQuery(view, sql, SETTINGS, gw.services.sqlPool, { translate: true }),
      ),
    );
    expect(poolCalls - before).toBe(1);
    for (const p of all) expect(p).toEqual(all[0]);
  });
});
