import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { CORPUS_DIR } from '../support/corpus-dir.ts';

export const CORPUS = CORPUS_DIR;

/** Column name → type, as the corpus's schema.json lists them. */
export const corpusSchema = (name: 'tpch' | 'tpcds'): Record<string, Record<string, string>> =>
  JSON.parse(readFileSync(`${CORPUS}/${name}/schema.json`, 'utf8')) as Record<string, Record<string, string>>;

const DUCK_TYPES: Record<string, string> = {
  bigint: 'BIGINT',
  int: 'INTEGER',
  double: 'DOUBLE',
  string: 'VARCHAR',
  date: 'DATE',
};

/** One in-process DuckDB holding a corpus (single-threaded: deterministic and kind to a 2-core CI). */
export const openCorpusDb = async (name: 'tpch' | 'tpcds'): Promise<DuckDBConnection> => {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await db.connect();
  for (const [table, cols] of Object.entries(corpusSchema(name))) {
    const spec = Object.entries(cols)
      .map(([c, t]) => `'${c}': '${DUCK_TYPES[t] ?? 'VARCHAR'}'`)
      .join(', ');
    await conn.run(
      `CREATE TABLE ${table} AS SELECT * FROM read_csv('${CORPUS}/${name}/${table}.csv.gz', delim='|', header=true, columns={${spec}})`,
    );
  }
  return conn;
};

export type ResultSet = { columns: string[]; rows: string[] };

const canon = (v: unknown): unknown => {
  if (typeof v === 'number') return Number.isInteger(v) ? v : Number(v.toPrecision(12));
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(canon);
  if (v !== null && typeof v === 'object')
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x));
  return v;
};

/** Runs a query and returns its column names and rows as canonical JSON texts (doubles to 12 digits). */
export const runQuery = async (conn: DuckDBConnection, sql: string): Promise<ResultSet> => {
  const reader = await conn.runAndReadAll(sql);
  return { columns: reader.columnNames(), rows: reader.getRowsJS().map((r) => JSON.stringify(r.map(canon))) };
};

/** Equal as multisets, and in the same order when `ordered`. Returns a difference description or undefined. */
export const compareResults = (a: ResultSet, b: ResultSet, ordered: boolean): string | undefined => {
  if (JSON.stringify(a.columns) !== JSON.stringify(b.columns))
    return `columns differ: ${a.columns.join(',')} vs ${b.columns.join(',')}`;
  if (a.rows.length !== b.rows.length) return `row counts differ: ${a.rows.length} vs ${b.rows.length}`;
  const sa = [...a.rows].sort();
  const sb = [...b.rows].sort();
  const i = sa.findIndex((r, k) => r !== sb[k]);
  if (i >= 0) return `rows differ: ${sa[i]} vs ${sb[i]}`;
  if (ordered && a.rows.some((r, k) => r !== b.rows[k])) return 'same rows in a different order';
  return undefined;
};
