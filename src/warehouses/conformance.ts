import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGatewayError } from '../core/errors.ts';
import type { GatewayError } from '../core/errors.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import type { WarehouseAdapter } from './adapter.ts';

/**
 * A statement that runs for seconds on each engine, to exercise timeouts and cancellation. Sleeping functions
 * are off the read-only guard's allowlist (docs/security.md), so every engine gets a cross product it cannot
 * shortcut and must compare pair by pair: 10^10 rows of generate_series (PostgreSQL), of DuckDB's range, 10^12
 * of a recursive CTE (MySQL/MariaDB), lineitem with itself (BigQuery: the suite's tables).
 */
const SLOW_SQL: Readonly<Record<SqlDialect, string>> = {
  postgres:
    'SELECT count(*) FROM generate_series(1, 100000) a(n), generate_series(1, 100000) b(n) WHERE a.n * b.n = 7',
  mysql:
    'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT count(*) FROM r a, r b, r c, r d WHERE a.n * b.n * c.n * d.n = 7',
  duckdb: 'SELECT count(*) FROM range(100000) a, range(100000) b WHERE a.range * b.range = 7',
  bigquery: 'SELECT COUNT(*) FROM lineitem a CROSS JOIN lineitem b WHERE a.l_orderkey * b.l_partkey = 7',
  snowflake: 'SELECT SYSTEM$WAIT(5)',
};

export type ConformanceSetup = () => Promise<{
  readonly adapter: WarehouseAdapter;
  readonly cleanup: () => Promise<void>;
}>;

const rejection = async (p: Promise<unknown>): Promise<GatewayError> => {
  try {
    await p;
  } catch (e) {
    if (isGatewayError(e)) return e;
    throw new Error(`expected a GatewayError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected the statement to fail, it succeeded');
};

/**
 * The suite every adapter passes (STYLE.md: one suite, every database). `setup` returns an adapter over the
 * TPC-H tables (the corpus or the demo dataset: region, nation, orders, lineitem, … with their keys); the
 * suite never writes and branches only on capabilities.
 *
 * @example describeConformance('aurora-postgres', async () => ({ adapter, cleanup: () => adapter.close() }));
 */
export const describeConformance = (name: string, setup: ConformanceSetup): void => {
  describe(`${name}: warehouse adapter conformance`, () => {
    let adapter!: WarehouseAdapter;
    let cleanup: () => Promise<void> = () => Promise.resolve();
    const nationRows = async (): Promise<number> =>
      (await adapter.execute('SELECT n_name FROM nation', { timeoutMs: 10_000 })).rows;

    beforeAll(async () => {
      ({ adapter, cleanup } = await setup());
    });
    afterAll(async () => {
      await cleanup();
    });

    it('counts rows: none, one, many (beyond any batch size), with column names in order', async () => {
      const counted = async (sql: string, timeoutMs = 10_000) => {
        const { rows, columns } = await adapter.execute(sql, { timeoutMs });
        return { rows, columns };
      };
      expect(await counted('SELECT n_nationkey, n_name FROM nation WHERE n_nationkey < 0')).toEqual({
        rows: 0,
        columns: ['n_nationkey', 'n_name'],
      });
      expect(await counted('SELECT n_name AS b, n_nationkey AS a FROM nation WHERE n_nationkey = 1')).toEqual(
        {
          rows: 1,
          columns: ['b', 'a'],
        },
      );
      expect(await counted('SELECT a.n_nationkey FROM nation a, nation b, nation c', 30_000)).toEqual({
        rows: 25 ** 3,
        columns: ['n_nationkey'],
      });
    });

    it('refuses a write at the connection (query-failed) and leaves the data unchanged', async (ctx) => {
      if (!adapter.capabilities.readOnlyConnection) {
        console.info(`${name}: read-only check skipped: capabilities.readOnlyConnection is false`);
        ctx.skip();
        return;
      }
      const error = await rejection(adapter.execute('DELETE FROM nation', { timeoutMs: 10_000 }));
      expect(error.code).toBe('query-failed');
      expect(await nationRows()).toBe(25);
    });

    it('reports the warehouse error as query-failed with its message', async () => {
      const error = await rejection(
        adapter.execute('SELECT no_such_column FROM nation', { timeoutMs: 10_000 }),
      );
      expect(error.code).toBe('query-failed');
      expect(error.detail.toLowerCase()).toContain('no_such_column');
    });

    it('times out with query-timeout, promptly, and the adapter still serves', async () => {
      const started = Date.now();
      const error = await rejection(adapter.execute(SLOW_SQL[adapter.dialect], { timeoutMs: 300 }));
      expect(error.code).toBe('query-timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await nationRows()).toBe(25);
    });

    it('cancels the statement when the abort signal fires, and still serves', async (ctx) => {
      if (!adapter.capabilities.cancel) {
        console.info(`${name}: abort skipped: capabilities.cancel is false`);
        ctx.skip();
        return;
      }
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 200);
      const error = await rejection(
        adapter.execute(SLOW_SQL[adapter.dialect], { timeoutMs: 30_000, signal: controller.signal }),
      );
      expect(error.code).not.toBe('query-timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(
        await rejection(adapter.execute('SELECT 1', { timeoutMs: 1_000, signal: controller.signal })),
      ).toBeTruthy();
      expect(await nationRows()).toBe(25);
    });

    it('introspects the loaded tables with columns, types and keys', async () => {
      // The tables named, for adapters that load only what a query names (BigQuery); others give everything.
      const catalog = await adapter.introspect(['nation', 'orders', 'lineitem'].map((name) => ({ name })));
      const nation = catalog.tables.get('nation');
      expect(nation?.columns.map((c) => c.name)).toEqual([
        'n_nationkey',
        'n_name',
        'n_regionkey',
        'n_comment',
      ]);
      expect(nation?.columns.map((c) => c.type)).toEqual(['int64', 'string', 'int64', 'string']);
      expect(nation?.primaryKey).toEqual(['n_nationkey']);
      expect(catalog.tables.get('orders')?.primaryKey).toEqual(['o_orderkey']);
      expect(catalog.tables.get('lineitem')?.primaryKey).toEqual(['l_orderkey', 'l_linenumber']);
      expect(catalog.tables.get('orders')?.columns.find((c) => c.name === 'o_orderdate')?.type).toBe('date');
    });

    it('explains a statement with estimated rows, pages and cost (capability explain)', async (ctx) => {
      if (!adapter.capabilities.explain || !adapter.explain) {
        console.info(`${name}: explain skipped: capabilities.explain is false`);
        ctx.skip();
        return;
      }
      const plan = await adapter.explain('SELECT l_orderkey FROM lineitem WHERE l_quantity > 10');
      expect(plan.rowsScanned).toBeGreaterThan(0);
      expect(plan.pages).toBeGreaterThan(0);
      expect(plan.totalCost).toBeGreaterThan(0);
      expect(plan.rowsReturned).toBeGreaterThanOrEqual(0);
      const error = await rejection(adapter.explain('SELECT no_such_column FROM nation'));
      expect(error.code).toBe('query-failed');
    });

    it('answers ping', async () => {
      expect(await adapter.ping()).toBe(true);
    });
  });
};
