import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WarehouseAdapter } from '../../src/warehouses/adapter.ts';
import { openAuroraMysql } from '../../src/warehouses/aurora-mysql.ts';
import { createMysqlTpchDatabase } from '../support/mysql-database.ts';

const baseUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (baseUrl === undefined) console.info('aurora-mysql faults skipped: SQLGATE_TEST_MYSQL_URL is not set');

/**
 * Faults against the shared MariaDB, confined to this file's own database. Stopping the server is not tried
 * here (others share it); the unreachable-server path is covered by src/warehouses/aurora.test.ts.
 */
describe.skipIf(baseUrl === undefined)('aurora-mysql under faults', () => {
  let adapter!: WarehouseAdapter;
  let admin!: mysql.Connection;
  let database = '';
  let drop: () => Promise<void> = () => Promise.resolve();
  const count = async (sql: string): Promise<number> => {
    const [rows] = await admin.query(sql);
    return Number((rows as Array<{ n: number }>)[0]?.n ?? -1);
  };
  /** Our pool's server threads: connections sitting in this file's database. */
  const poolThreads = async (): Promise<number[]> => {
    const [rows] = await admin.query(
      'SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()',
      [database],
    );
    return (rows as Array<{ id: number }>).map((r) => Number(r.id));
  };

  beforeAll(async () => {
    const db = await createMysqlTpchDatabase(baseUrl ?? '');
    ({ database, drop } = db);
    adapter = openAuroraMysql({ url: db.url, poolSize: 2, statementTimeoutMs: 30_000, catalogTtlMs: 1_000 });
    admin = await mysql.createConnection(db.url);
  });
  afterAll(async () => {
    await admin?.end();
    await adapter?.close();
    await drop();
  });

  it('refuses writes and DDL at the connection and leaves the data unchanged', async () => {
    const before = await count('SELECT count(*) AS n FROM lineitem');
    expect(before).toBeGreaterThan(0);
    for (const sql of [
      'DELETE FROM lineitem',
      'SELECT 1; DELETE FROM lineitem',
      'CREATE TABLE sneaky (a int)',
      'CREATE TEMPORARY TABLE sneaky (a int)',
    ])
      await expect(adapter.execute(sql, { timeoutMs: 5_000 }), sql).rejects.toMatchObject({
        code: 'query-failed',
      });
    expect(await count('SELECT count(*) AS n FROM lineitem')).toBe(before);
    expect(
      await count(`SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'sneaky'`),
    ).toBe(0);
  });

  it('kills a statement past its timeout on the server (gone from the process list)', async () => {
    await expect(
      adapter.execute('SELECT SLEEP(5) AS timeout_marker', { timeoutMs: 300 }),
    ).rejects.toMatchObject({
      code: 'query-timeout',
    });
    expect(
      await count(
        `SELECT count(*) AS n FROM information_schema.processlist WHERE info LIKE '%timeout\\_marker%' AND id <> CONNECTION_ID()`,
      ),
    ).toBe(0);
    expect((await adapter.execute('SELECT 1', { timeoutMs: 5_000 })).rows).toBe(1);
  });

  it('replaces a connection killed on the server, idle or mid-statement', async () => {
    await adapter.execute('SELECT 1', { timeoutMs: 5_000 });
    const killPool = async (): Promise<void> => {
      for (const id of await poolThreads()) await admin.query(`KILL ${id}`).catch(() => undefined);
    };
    await killPool();
    expect((await adapter.execute('SELECT n_name FROM nation', { timeoutMs: 5_000 })).rows).toBe(25);
    const running = adapter.execute('SELECT SLEEP(5)', { timeoutMs: 10_000 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await killPool();
    expect(await running).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
    expect((await adapter.execute('SELECT n_name FROM nation', { timeoutMs: 5_000 })).rows).toBe(25);
  });
});
