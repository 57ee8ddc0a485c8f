import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WarehouseAdapter } from '../../src/warehouses/adapter.ts';
import { openAuroraMysql } from '../../src/warehouses/aurora-mysql.ts';
import { createMysqlTpchDatabase } from '../support/mysql-database.ts';
import { duckDbTpchRowCounts, tpchQueries } from '../support/tpch-duckdb.ts';

const baseUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (baseUrl === undefined) console.info('TPC-H on aurora-mysql skipped: SQLGATE_TEST_MYSQL_URL is not set');

/**
 * The MySQL spellings beside this file: q13 names its count inside the derived table (MariaDB has no derived-table
 * column list) and q03 casts AS CHAR (the corpus's AS STRING is not MySQL); the other 20 are the corpus's text.
 */
const mysqlSql = (name: string): string =>
  readFileSync(new URL(`./tpch-mysql/${name}.sql`, import.meta.url), 'utf8');

describe.skipIf(baseUrl === undefined)(
  'TPC-H (MySQL spelling) on aurora-mysql gives DuckDB’s row counts',
  () => {
    let adapter!: WarehouseAdapter;
    let expected = new Map<string, number>();
    let drop: () => Promise<void> = () => Promise.resolve();

    beforeAll(async () => {
      const db = await createMysqlTpchDatabase(baseUrl ?? '');
      drop = db.drop;
      adapter = openAuroraMysql({
        url: db.url,
        poolSize: 2,
        statementTimeoutMs: 60_000,
        catalogTtlMs: 60_000,
      });
      expected = await duckDbTpchRowCounts();
    });
    afterAll(async () => {
      await adapter.close();
      await drop();
    });

    for (const { name } of tpchQueries())
      it(name, async () => {
        const result = await adapter.execute(mysqlSql(name), { timeoutMs: 60_000 });
        expect(result.rows).toBe(expected.get(name));
      });
  },
);
