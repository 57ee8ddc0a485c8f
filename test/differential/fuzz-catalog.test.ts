import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { findTable } from '../../src/core/catalog.ts';
import { columnType } from '../../src/core/rewrite/sql-type-names.ts';
import { readMysqlCatalog } from '../../src/warehouses/mysql-catalog.ts';
import { readPgCatalog } from '../../src/warehouses/pg-catalog.ts';
import { catalogFor, setupStatements } from './fuzz/schema.ts';

/**
 * The catalogs the fuzzer hands the rewrite engine are what introspection of the same tables reads: raw
 * types and (the rules compare string types by them) collations — MariaDB's on every string column,
 * PostgreSQL's only when not the default.
 */
const urls = { postgres: process.env.SQLGATE_TEST_POSTGRES_URL, mysql: process.env.SQLGATE_TEST_MYSQL_URL };
const name = (): string => `sg_cat_${randomBytes(5).toString('hex')}`;
const EMPTY = { t1: [], t2: [], t3: [] };

describe.skipIf(!urls.mysql)('MariaDB introspection reads collations', () => {
  it('agrees with the fuzzer catalog, collations included', async () => {
    const database = name();
    const admin = await mysql.createConnection(urls.mysql ?? '');
    try {
      await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
      await admin.query(`USE ${database}`);
      for (const s of setupStatements(EMPTY, 'mariadb')) await admin.query(s);
      const read = async (sql: string) => (await admin.query<mysql.RowDataPacket[]>(sql))[0];
      const seen = await readMysqlCatalog(read);
      for (const table of catalogFor('mariadb').tables.values())
        for (const col of table.columns) {
          const got = findTable(seen, table.name)?.columns.find((c) => c.name === col.name);
          expect(got?.collation, `${table.name}.${col.name}`).toBe(col.collation);
          // The same type, however each spells it (int(11) / integer, double / double precision).
          expect(got && columnType(got).name, `${table.name}.${col.name}`).toBe(columnType(col).name);
        }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.end();
    }
  });
});

describe.skipIf(!urls.postgres)('PostgreSQL introspection reads non-default collations', () => {
  it('names a column collation only when it is not the database default', async () => {
    const schema = name();
    const client = new pg.Client({ connectionString: urls.postgres });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`SET search_path = ${schema}`);
      await client.query('CREATE TABLE coll (a text COLLATE "C", b text, c integer)');
      const cols = findTable(await readPgCatalog(client), 'coll')?.columns ?? [];
      expect(cols.map((c) => [c.name, c.collation])).toEqual([
        ['a', 'C'],
        ['b', undefined],
        ['c', undefined],
      ]);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });
});
