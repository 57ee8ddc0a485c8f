import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { isGatewayError } from '../../src/core/errors.ts';
import { describeConformance } from '../../src/warehouses/conformance.ts';
import type { Warehouse } from '../../src/warehouses/registry.ts';
import { snowflake } from '../../src/warehouses/snowflake.ts';

/**
 * Optional: the same adapter against a real Snowflake account. Runs when SQLGATE_TEST_SNOWFLAKE_ACCOUNT,
 * SQLGATE_TEST_SNOWFLAKE_USER and SQLGATE_TEST_SNOWFLAKE_PRIVATE_KEY_FILE (or …_PASSWORD) are set, with
 * SQLGATE_TEST_SNOWFLAKE_WAREHOUSE (and optionally …_ROLE). It reads SNOWFLAKE_SAMPLE_DATA.TPCH_SF1, which
 * every account has (one X-Small warehouse minute at most). With SQLGATE_TEST_SNOWFLAKE_TPCH_DATABASE and
 * …_TPCH_SCHEMA naming a schema that holds the TPC-H tables with their primary keys declared, the conformance
 * suite runs on it too.
 */
const env = process.env;
const account = env.SQLGATE_TEST_SNOWFLAKE_ACCOUNT;
const user = env.SQLGATE_TEST_SNOWFLAKE_USER;
const keyFile = env.SQLGATE_TEST_SNOWFLAKE_PRIVATE_KEY_FILE;
const password = env.SQLGATE_TEST_SNOWFLAKE_PASSWORD;
const live = account !== undefined && user !== undefined && (keyFile !== undefined || password !== undefined);
const tpchDatabase = env.SQLGATE_TEST_SNOWFLAKE_TPCH_DATABASE;
const tpchSchema = env.SQLGATE_TEST_SNOWFLAKE_TPCH_SCHEMA;
if (!live)
  console.info(
    'Snowflake live test skipped: set SQLGATE_TEST_SNOWFLAKE_ACCOUNT, SQLGATE_TEST_SNOWFLAKE_USER and SQLGATE_TEST_SNOWFLAKE_PRIVATE_KEY_FILE (or SQLGATE_TEST_SNOWFLAKE_PASSWORD) to run it',
  );
else if (tpchSchema === undefined)
  console.info(
    'Snowflake live conformance skipped: SQLGATE_TEST_SNOWFLAKE_TPCH_DATABASE / _TPCH_SCHEMA (TPC-H tables with primary keys) are not set',
  );

const openLive = async (database: string, schema: string): Promise<Warehouse> => {
  const config = loadConfig({
    SQLGATE_SNOWFLAKE_ACCOUNT: account ?? '',
    SQLGATE_SNOWFLAKE_USER: user ?? '',
    ...(keyFile !== undefined ? { SQLGATE_SNOWFLAKE_PRIVATE_KEY_FILE: keyFile } : {}),
    ...(password !== undefined ? { SQLGATE_SNOWFLAKE_PASSWORD: password } : {}),
    ...(env.SQLGATE_TEST_SNOWFLAKE_WAREHOUSE !== undefined
      ? { SQLGATE_SNOWFLAKE_WAREHOUSE: env.SQLGATE_TEST_SNOWFLAKE_WAREHOUSE }
      : {}),
    ...(env.SQLGATE_TEST_SNOWFLAKE_ROLE !== undefined
      ? { SQLGATE_SNOWFLAKE_ROLE: env.SQLGATE_TEST_SNOWFLAKE_ROLE }
      : {}),
    SQLGATE_SNOWFLAKE_DATABASE: database,
    SQLGATE_SNOWFLAKE_SCHEMA: schema,
  });
  return snowflake.open(config.warehouses.snowflake ?? {}, {
    statementTimeoutMs: 60_000,
    catalogTtlMs: 60_000,
    localEngine: () => Promise.reject(new Error('the live test runs connected only')),
  });
};

describe.skipIf(!live)('snowflake live (a real account)', () => {
  it('runs a tagged query, explains it and introspects the sample TPC-H schema', async () => {
    const w = await openLive('SNOWFLAKE_SAMPLE_DATA', 'TPCH_SF1');
    try {
      expect(w.mode).toBe('connected');
      const out = await w.adapter.execute('SELECT n_name FROM nation WHERE n_regionkey = 1', {
        timeoutMs: 60_000,
        attribution: {
          traceId: '0af7651916cd43dd8448eb211c80319c',
          accountId: 'acc_live',
          keyId: 'key_live',
        },
      });
      expect(out.rows).toBe(5);
      expect(out.columns).toEqual(['n_name']);
      expect(out.run?.queryId).toMatch(/^[0-9a-f-]{36}$/);
      const plan = await w.adapter.explain?.(
        "SELECT o_totalprice FROM orders WHERE o_orderdate < '1993-01-01'",
      );
      expect(plan?.pages).toBeGreaterThan(0);
      const catalog = await w.adapter.introspect();
      expect(catalog.tables.get('orders')?.columns.find((c) => c.name === 'o_orderdate')?.type).toBe('date');
      expect(catalog.tables.get('lineitem')?.stats?.rows).toBeGreaterThan(1_000_000);
    } finally {
      await w.adapter.close();
    }
  }, 180_000);

  it('reports a compilation error with its position, and refuses a write', async () => {
    const w = await openLive('SNOWFLAKE_SAMPLE_DATA', 'TPCH_SF1');
    try {
      const e = await w.adapter
        .execute('SELECT no_such_column FROM nation', { timeoutMs: 60_000 })
        .catch((x: unknown) => x);
      expect(isGatewayError(e) && e.code).toBe('query-failed');
      expect(isGatewayError(e) && e.context.line).toBe(1);
      const write = await w.adapter
        .execute('DELETE FROM nation', { timeoutMs: 60_000 })
        .catch((x: unknown) => x);
      expect(isGatewayError(write) && write.code).toBe('query-failed');
    } finally {
      await w.adapter.close();
    }
  }, 180_000);
});

if (live && tpchDatabase !== undefined && tpchSchema !== undefined)
  describeConformance('snowflake live', async () => {
    const w = await openLive(tpchDatabase, tpchSchema);
    return { adapter: w.adapter, cleanup: () => w.adapter.close() };
  });
