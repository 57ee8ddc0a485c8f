import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CORPUS_DIR } from './corpus-dir.ts';

/** The shared TPC-H corpus (queries in PostgreSQL spelling, `|`-delimited gzipped CSV with a header). */
export const TPCH_DIR = process.env.SQLGATE_TEST_TPCH_DIR ?? join(CORPUS_DIR, 'tpch');

export const TPCH_TABLES = [
  'region',
  'nation',
  'supplier',
  'customer',
  'part',
  'partsupp',
  'orders',
  'lineitem',
];

export const TPCH_PRIMARY_KEYS: Readonly<Record<string, readonly string[]>> = {
  region: ['r_regionkey'],
  nation: ['n_nationkey'],
  supplier: ['s_suppkey'],
  customer: ['c_custkey'],
  part: ['p_partkey'],
  partsupp: ['ps_partkey', 'ps_suppkey'],
  orders: ['o_orderkey'],
  lineitem: ['l_orderkey', 'l_linenumber'],
};

type CorpusType = 'bigint' | 'int' | 'double' | 'string' | 'date';
export type TpchDialect = 'postgres' | 'mysql' | 'duckdb';

export const tpchSchema = (): Record<string, Record<string, CorpusType>> =>
  JSON.parse(readFileSync(join(TPCH_DIR, 'schema.json'), 'utf8')) as Record<
    string,
    Record<string, CorpusType>
  >;

const sqlType = (dialect: TpchDialect, t: CorpusType): string => {
  switch (t) {
    case 'bigint':
      return 'BIGINT';
    case 'int':
      return 'INTEGER';
    case 'double':
      return dialect === 'postgres' ? 'DOUBLE PRECISION' : 'DOUBLE';
    case 'string':
      // MySQL cannot index TEXT without a prefix length; no TPC-H string exceeds 255 characters.
      return dialect === 'mysql' ? 'VARCHAR(255)' : 'TEXT';
    case 'date':
      return 'DATE';
  }
};

export const tpchCreateTable = (dialect: TpchDialect, table: string): string => {
  const columns = Object.entries(tpchSchema()[table] ?? {});
  const pk = TPCH_PRIMARY_KEYS[table] ?? [];
  const defs = columns.map(([c, t]) => `${c} ${sqlType(dialect, t)}${pk.includes(c) ? ' NOT NULL' : ''}`);
  return `CREATE TABLE ${table} (${[...defs, `PRIMARY KEY (${pk.join(', ')})`].join(', ')})`;
};

/** Rows of one table as text; an empty field is NULL (as DuckDB's read_csv reads it). */
export const readTpchRows = (table: string): { columns: string[]; rows: Array<Array<string | null>> } => {
  const text = gunzipSync(readFileSync(join(TPCH_DIR, `${table}.csv.gz`))).toString('utf8');
  const lines = text.split('\n').filter((l) => l.length > 0);
  const [header = '', ...body] = lines;
  return {
    columns: header.split('|'),
    rows: body.map((l) => l.split('|').map((v) => (v === '' ? null : v))),
  };
};

const literal = (dialect: TpchDialect, type: CorpusType | undefined, v: string | null): string => {
  if (v === null) return 'NULL';
  if (type === 'bigint' || type === 'int' || type === 'double') return v;
  const escaped = dialect === 'mysql' ? v.replace(/\\/g, '\\\\').replace(/'/g, "''") : v.replace(/'/g, "''");
  return `'${escaped}'`;
};

/** Creates the eight TPC-H tables through `run` (already in the target schema) and inserts in batches. */
export const loadTpch = async (
  dialect: TpchDialect,
  run: (sql: string) => Promise<unknown>,
): Promise<void> => {
  const schema = tpchSchema();
  for (const table of TPCH_TABLES) {
    await run(tpchCreateTable(dialect, table));
    const { columns, rows } = readTpchRows(table);
    const types = columns.map((c) => schema[table]?.[c]);
    for (let i = 0; i < rows.length; i += 1000) {
      const values = rows
        .slice(i, i + 1000)
        .map((r) => `(${r.map((v, j) => literal(dialect, types[j], v)).join(', ')})`)
        .join(',\n');
      await run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values}`);
    }
  }
};

export const randomSchemaName = (): string => `sg_${Math.random().toString(36).slice(2, 10)}`;
