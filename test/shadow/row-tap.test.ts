import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFingerprinter, sameFingerprint } from '../../src/core/verify/fingerprint.ts';
import type { WarehouseAdapter } from '../../src/warehouses/adapter.ts';
import { openAuroraMysql } from '../../src/warehouses/aurora-mysql.ts';
import { openAuroraPostgres } from '../../src/warehouses/aurora-postgres.ts';
import { openDuckDbLocal } from '../../src/warehouses/duckdb-local.ts';
import { openSnowflake } from '../../src/warehouses/snowflake-adapter.ts';
import { snowflakeKeys } from '../support/snowflake-keys.ts';
import { startSnowflakeStandin } from '../support/snowflake-standin.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
const myUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (pgUrl === undefined) console.info('row tap on PostgreSQL skipped: SQLGATE_TEST_POSTGRES_URL is not set');
if (myUrl === undefined) console.info('row tap on MariaDB skipped: SQLGATE_TEST_MYSQL_URL is not set');

const KEY = randomBytes(32);
const aurora = (url: string) => ({ url, poolSize: 2, statementTimeoutMs: 30_000, catalogTtlMs: 60_000 });

/** The adapter of an engine, and what to stop after. Snowflake: the real `snowflake-sdk` against the stand-in. */
const openEngine = async (
  engine: string,
  dir: string,
): Promise<{ adapter: WarehouseAdapter; close: () => Promise<void> }> => {
  if (engine === 'duckdb') {
    (await DuckDBInstance.create(join(dir, 'tap.duckdb'))).closeSync();
    const adapter = await openDuckDbLocal({
      path: join(dir, 'tap.duckdb'),
      dataDir: dir,
      demoScale: 0,
      connections: 1,
      progress: () => undefined,
    });
    return { adapter, close: () => adapter.close() };
  }
  if (engine === 'snowflake') {
    const keys = snowflakeKeys();
    const standin = await startSnowflakeStandin({ port: 26230, publicKey: keys.publicKey });
    const adapter = await openSnowflake({
      account: standin.account,
      user: standin.user,
      auth: { kind: 'key-pair', privateKey: keys.privateKey },
      warehouse: standin.warehouse,
      database: standin.database,
      schema: standin.schema,
      role: standin.role,
      accessUrl: standin.url,
      poolSize: 1,
      statementTimeoutMs: 30_000,
      catalogTtlMs: 60_000,
      credentialsHint: 'X',
    });
    return { adapter, close: async () => (await adapter.close(), await standin.close()) };
  }
  const adapter =
    engine === 'postgres' ? openAuroraPostgres(aurora(pgUrl!)) : openAuroraMysql(aurora(myUrl!));
  return { adapter, close: () => adapter.close() };
};

/**
 * What each adapter hands to `ExecuteOptions.tap` makes fingerprints that compare rows as POST /verify does:
 * numbers by exact value whatever their SQL type, never rounded, apart from strings and NULL; rows as a multiset.
 * Snowflake runs on its stand-in (port 26230), its rows streamed in array mode and converted as for a sink.
 */
describe.each([
  { engine: 'duckdb', skip: false, decimal: 'DECIMAL(20,2)', big: 'BIGINT' },
  { engine: 'postgres', skip: pgUrl === undefined, decimal: 'NUMERIC(20,2)', big: 'BIGINT' },
  { engine: 'mysql', skip: myUrl === undefined, decimal: 'DECIMAL(20,2)', big: 'SIGNED' },
  { engine: 'snowflake', skip: false, decimal: 'NUMBER(20,2)', big: 'NUMBER(38,0)' },
])('the row tap of $engine', ({ engine, skip, decimal, big }) => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlgate-tap-'));
  let opened: { adapter: WarehouseAdapter; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    if (!skip) opened = await openEngine(engine, dir);
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fp = async (sql: string) => {
    const f = createFingerprinter(KEY);
    const r = await opened!.adapter.execute(sql, {
      timeoutMs: 30_000,
      tap: { columns: f.columns, row: f.add },
    });
    const out = f.result();
    expect(out.rows).toBe(r.rows);
    return out;
  };
  const same = async (a: string, b: string) => sameFingerprint(await fp(a), await fp(b));

  it.skipIf(skip)('declares the capability', () => {
    expect(opened!.adapter.capabilities.rowTap).toBe(true);
  });

  it.skipIf(skip)('equal where POST /verify says equal', async () => {
    expect(await same('SELECT 1 AS a', `SELECT CAST(1 AS ${decimal}) AS a`)).toBe(true);
    expect(await same('SELECT 1 AS a UNION ALL SELECT 2', 'SELECT 2 AS a UNION ALL SELECT 1')).toBe(true);
    expect(
      await same(
        `SELECT CAST(9007199254740993 AS ${big}) AS a`,
        'SELECT CAST(9007199254740993 AS DECIMAL(20,0)) AS a',
      ),
    ).toBe(true);
  });

  it.skipIf(skip)('different where POST /verify says different', async () => {
    expect(
      await same(
        `SELECT CAST(9007199254740993 AS ${big}) AS a`,
        `SELECT CAST(9007199254740992 AS ${big}) AS a`,
      ),
    ).toBe(false);
    expect(await same('SELECT 1 AS a', "SELECT '1' AS a")).toBe(false);
    expect(await same('SELECT NULL AS a', "SELECT 'null' AS a")).toBe(false);
    expect(await same('SELECT 1 AS a UNION ALL SELECT 1', 'SELECT 1 AS a')).toBe(false);
    expect(await same('SELECT 1 AS a', 'SELECT 1 AS b')).toBe(false);
    expect(await same("SELECT 'x' AS a", "SELECT 'X' AS a")).toBe(false);
  });

  it.skipIf(engine !== 'snowflake')(
    'fingerprints every row of a result that spans several chunks',
    async () => {
      const r = await fp('SELECT o_orderkey, o_totalprice, o_orderdate FROM orders');
      expect(r.rows).toBeGreaterThan(1000);
      expect(
        await same(
          'SELECT n_name FROM nation WHERE n_regionkey IN (1, 2)',
          'SELECT n_name FROM nation WHERE n_regionkey = 2 OR n_regionkey = 1 ORDER BY n_name DESC',
        ),
      ).toBe(true);
    },
  );
});
