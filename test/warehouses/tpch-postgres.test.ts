import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WarehouseAdapter } from '../../src/warehouses/adapter.ts';
import { openAuroraPostgres } from '../../src/warehouses/aurora-postgres.ts';
import { createPgTpchSchema } from '../support/pg-schema.ts';
import { duckDbTpchRowCounts, tpchQueries } from '../support/tpch-duckdb.ts';

const baseUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (baseUrl === undefined)
  console.info('TPC-H on aurora-postgres skipped: SQLGATE_TEST_POSTGRES_URL is not set');

/**
 * The corpus's q03 casts `AS STRING`, which DuckDB and BigQuery accept and PostgreSQL does not: the one
 * correction (TEXT) the corpus needs to be PostgreSQL. The row count does not depend on it.
 */
const postgresSpelling = (sql: string): string => sql.replace(/\bAS STRING\)/gi, 'AS TEXT)');

describe.skipIf(baseUrl === undefined)('TPC-H on aurora-postgres gives DuckDB’s row counts', () => {
  let adapter!: WarehouseAdapter;
  let expected = new Map<string, number>();
  let drop: () => Promise<void> = () => Promise.resolve();

  beforeAll(async () => {
    const db = await createPgTpchSchema(baseUrl ?? '');
    drop = db.drop;
    adapter = openAuroraPostgres({
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

  for (const { name, sql } of tpchQueries())
    it(name, async () => {
      const result = await adapter.execute(postgresSpelling(sql), { timeoutMs: 60_000 });
      expect(result.rows).toBe(expected.get(name));
    });
});
