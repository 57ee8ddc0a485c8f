import { randomBytes } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { Catalog } from '../../../src/core/catalog.ts';
import type { SqlDialect } from '../../../src/core/sql/dialect.ts';
import { parseSql } from '../../../src/core/sql/parse.ts';
import { toDuckDb } from '../../../src/core/sql/print.ts';
import { runQuery } from '../duckdb-harness.ts';
import type { ResultSet } from '../duckdb-harness.ts';
import { toResultSet } from '../engine-results.ts';
import { catalogFor, setupStatements } from './schema.ts';
import type { Data, Engine } from './schema.ts';

/**
 * The three real engines the fuzzer compares on, each in a schema / database of its own (dropped on close):
 * DuckDB in process (PostgreSQL spelling translated by `toDuckDb`, as local mode runs it), PostgreSQL and
 * MariaDB on the shared servers. A statement an engine refuses is a refusal, not a crash.
 */
export type RunResult =
  { readonly ok: true; readonly rs: ResultSet } | { readonly ok: false; readonly error: string };

export type EngineRunner = {
  readonly engine: Engine;
  /** The dialect queries are written (and rewritten) in. */
  readonly dialect: SqlDialect;
  readonly catalog: Catalog;
  readonly load: (data: Data) => Promise<void>;
  readonly run: (sql: string) => Promise<RunResult>;
  readonly close: () => Promise<void>;
};

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const schemaName = (): string => `sg_fuzz_${randomBytes(5).toString('hex')}`;

const openDuckDb = async (): Promise<EngineRunner> => {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await instance.connect();
  await conn.run('SET integer_division = true');
  return {
    engine: 'duckdb',
    dialect: 'postgres',
    catalog: catalogFor('duckdb'),
    load: async (data) => {
      for (const s of setupStatements(data, 'duckdb')) await conn.run(s);
    },
    run: async (sql) => {
      const parsed = parseSql(sql, 'postgres');
      const stmt = parsed.ok ? parsed.statements[0] : undefined;
      if (!stmt) return { ok: false, error: parsed.ok ? 'no statement' : parsed.failure.message };
      const duck = toDuckDb(stmt, 'postgres');
      if (!duck.ok) return { ok: false, error: `not translatable: ${duck.message}` };
      // DuckDB has no statement timeout: interrupt a pathological query as the servers would.
      const timer = setTimeout(() => conn.interrupt(), 5000);
      try {
        return { ok: true, rs: await runQuery(conn, duck.sql) };
      } catch (e) {
        return { ok: false, error: message(e) };
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => {
      conn.closeSync();
      instance.closeSync();
      return Promise.resolve();
    },
  };
};

const openPostgres = async (baseUrl: string): Promise<EngineRunner> => {
  const schema = schemaName();
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  await client.query(`SET search_path = ${schema}`);
  await client.query("SET statement_timeout = '5s'");
  return {
    engine: 'postgres',
    dialect: 'postgres',
    catalog: catalogFor('postgres'),
    load: async (data) => {
      for (const s of setupStatements(data, 'postgres')) await client.query(s);
    },
    run: async (sql) => {
      try {
        const r = await client.query<unknown[]>({ text: sql, rowMode: 'array' });
        return {
          ok: true,
          rs: toResultSet(
            r.fields.map((f) => f.name),
            r.rows,
          ),
        };
      } catch (e) {
        return { ok: false, error: message(e) };
      }
    },
    close: async () => {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
};

const openMariaDb = async (baseUrl: string): Promise<EngineRunner> => {
  const database = schemaName();
  const admin = await mysql.createConnection(baseUrl);
  await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  const conn = await mysql.createConnection({
    uri: url.toString(),
    dateStrings: true,
    supportBigNumbers: true,
  });
  await conn.query("SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ONLY_FULL_GROUP_BY', max_statement_time = 5");
  await conn.query('SET NAMES utf8mb4 COLLATE utf8mb4_general_ci');
  return {
    engine: 'mariadb',
    dialect: 'mysql',
    catalog: catalogFor('mariadb'),
    load: async (data) => {
      for (const s of setupStatements(data, 'mariadb')) await conn.query(s);
    },
    run: async (sql) => {
      try {
        const [rows, fields] = await conn.query<mysql.RowDataPacket[]>({ sql, rowsAsArray: true });
        return {
          ok: true,
          rs: toResultSet(
            fields.map((f) => f.name),
            rows as unknown as unknown[][],
          ),
        };
      } catch (e) {
        return { ok: false, error: message(e) };
      }
    },
    close: async () => {
      await conn.query(`DROP DATABASE IF EXISTS ${database}`);
      await conn.end();
    },
  };
};

/** Opens an engine, or undefined when its server URL is not configured (the caller says why it skips). */
export const openEngine = async (
  engine: Engine,
  urls: { postgres?: string; mysql?: string },
): Promise<EngineRunner | undefined> => {
  if (engine === 'duckdb') return openDuckDb();
  if (engine === 'postgres') return urls.postgres === undefined ? undefined : openPostgres(urls.postgres);
  return urls.mysql === undefined ? undefined : openMariaDb(urls.mysql);
};
