import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { TPCH_DIR, TPCH_TABLES, tpchSchema } from './load-tpch.ts';

const DUCK_TYPES: Readonly<Record<string, string>> = {
  bigint: 'BIGINT',
  int: 'INTEGER',
  double: 'DOUBLE',
  string: 'VARCHAR',
  date: 'DATE',
};

/** The 22 queries of the corpus, PostgreSQL spelling, by name (q01 … q22). */
export const tpchQueries = (): Array<{ name: string; sql: string }> =>
  readdirSync(join(TPCH_DIR, 'queries'))
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ name: f.replace(/\.sql$/, ''), sql: readFileSync(join(TPCH_DIR, 'queries', f), 'utf8') }));

/**
 * The reference: the same corpus read by DuckDB's own CSV reader into an in-memory database, and the row
 * count each query gives there. DuckDB reads the PostgreSQL spelling as is.
 */
export const duckDbTpchRowCounts = async (): Promise<Map<string, number>> => {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const schema = tpchSchema();
    for (const table of TPCH_TABLES) {
      const columns = Object.entries(schema[table] ?? {})
        .map(([c, t]) => `'${c}': '${DUCK_TYPES[t] ?? 'VARCHAR'}'`)
        .join(', ');
      const file = join(TPCH_DIR, `${table}.csv.gz`).replace(/'/g, "''");
      await conn.run(
        `CREATE TABLE ${table} AS SELECT * FROM read_csv('${file}', delim = '|', header = true, columns = {${columns}})`,
      );
    }
    const counts = new Map<string, number>();
    for (const q of tpchQueries()) counts.set(q.name, (await conn.runAndReadAll(q.sql)).currentRowCount);
    return counts;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
};
