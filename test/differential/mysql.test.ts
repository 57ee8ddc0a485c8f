import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewriteSql } from '../../src/core/rewrite/testing.ts';
import { createMysqlTpchDatabase } from '../support/mysql-database.ts';
import { ANTI_PATTERNS } from './anti-patterns/corpus.ts';
import { compareResults } from './duckdb-harness.ts';
import type { ResultSet } from './duckdb-harness.ts';
import { toResultSet } from './engine-results.ts';

const baseUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (baseUrl === undefined) console.log('differential on MariaDB skipped: SQLGATE_TEST_MYSQL_URL is not set');

const CASES = ANTI_PATTERNS.filter((a) => a.dialect === 'mysql');

describe.skipIf(baseUrl === undefined)(
  'differential: original vs rewritten on MariaDB (MySQL spelling)',
  () => {
    let conn!: mysql.Connection;
    let drop: () => Promise<void> = () => Promise.resolve();
    const run = async (sql: string): Promise<ResultSet> => {
      const [rows, fields] = await conn.query<mysql.RowDataPacket[]>({ sql, rowsAsArray: true });
      return toResultSet(
        fields.map((f) => f.name),
        rows as unknown as unknown[][],
      );
    };

    beforeAll(async () => {
      const db = await createMysqlTpchDatabase(baseUrl ?? '');
      drop = db.drop;
      conn = await mysql.createConnection(db.url);
    });
    afterAll(async () => {
      await conn.end();
      await drop();
    });

    it('detects a changed result (the comparison can fail)', async () => {
      const a = await run('SELECT n_name FROM nation WHERE n_regionkey = 1');
      const b = await run('SELECT n_name FROM nation WHERE n_regionkey = 2');
      expect(a.rows.length).toBe(b.rows.length);
      expect(compareResults(a, b, false)).toMatch(/rows differ/);
    });

    it.each(CASES.map((c) => [c.id, c.sql] as const))('%s keeps its result', async (_id, sql) => {
      const out = rewriteSql(sql, 'mysql');
      expect(out.fallback, out.reason).toBe(false);
      expect(out.rulesApplied.length, 'a corpus query is rewritten').toBeGreaterThan(0);
      const [before, after] = [await run(sql), await run(out.sql)];
      expect(before.rows.length, 'the query returns rows').toBeGreaterThan(0);
      expect(compareResults(before, after, false), out.sql).toBeUndefined();
    });
  },
);
