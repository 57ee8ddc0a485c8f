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

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
const myUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (pgUrl === undefined) console.info('row tap on PostgreSQL skipped: SQLGATE_TEST_POSTGRES_URL is not set');
if (myUrl === undefined) console.info('row tap on MariaDB skipped: SQLGATE_TEST_MYSQL_URL is not set');

const KEY = randomBytes(32);
const aurora = (url: string) => ({ url, poolSize: 2, statementTimeoutMs: 30_000, catalogTtlMs: 60_000 });

/**
 * What each adapter hands to `ExecuteOptions.tap` makes fingerprints that compare rows as POST /verify does:
 * numbers by exact value whatever their SQL type, never rounded, apart from strings and NULL; rows as a multiset.
 */
describe.each([
  { engine: 'duckdb', skip: false, decimal: 'DECIMAL(20,2)', big: 'BIGINT' },
  { engine: 'postgres', skip: pgUrl === undefined, decimal: 'NUMERIC(20,2)', big: 'BIGINT' },
  { engine: 'mysql', skip: myUrl === undefined, decimal: 'DECIMAL(20,2)', big: 'SIGNED' },
])('the row tap of $engine', ({ engine, skip, decimal, big }) => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlgate-tap-'));
  let adapter: WarehouseAdapter | undefined;
  beforeAll(async () => {
    if (skip) return;
    if (engine === 'duckdb') (await DuckDBInstance.create(join(dir, 'tap.duckdb'))).closeSync();
    adapter =
      engine === 'duckdb'
        ? await openDuckDbLocal({
            path: join(dir, 'tap.duckdb'),
            dataDir: dir,
            demoScale: 0,
            connections: 1,
            progress: () => undefined,
          })
        : engine === 'postgres'
          ? openAuroraPostgres(aurora(pgUrl!))
          : openAuroraMysql(aurora(myUrl!));
  });
  afterAll(async () => {
    await adapter?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fp = async (sql: string) => {
    const f = createFingerprinter(KEY);
    const r = await adapter!.execute(sql, { timeoutMs: 30_000, tap: { columns: f.columns, row: f.add } });
    const out = f.result();
    expect(out.rows).toBe(r.rows);
    return out;
  };
  const same = async (a: string, b: string) => sameFingerprint(await fp(a), await fp(b));

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
});
