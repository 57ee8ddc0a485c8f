import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { TPCH_DIR, TPCH_PRIMARY_KEYS, TPCH_TABLES, tpchSchema } from './load-tpch.ts';

/**
 * The stand-in's database: the TPC-H corpus in DuckDB, laid out as Snowflake stores it — in micro-partitions of
 * a fixed `ROWS_PER_PARTITION` rows each, in the order of the table's clustering key (then its primary key), so
 * every figure EXPLAIN gives is exact and can be recomputed by a test: per micro-partition and column, the
 * minimum and maximum (what Snowflake prunes on) and the bytes (numbers 8, dates 4, text its UTF-8 length,
 * NULL 0).
 */
export const ROWS_PER_PARTITION = 500;

/** Clustering keys, as `CLUSTER BY` declares them; the rows are stored in this order. */
export const CLUSTERING: Readonly<Record<string, readonly string[]>> = {
  lineitem: ['l_shipdate'],
  orders: ['o_orderdate'],
};

export type ColumnKind = 'number' | 'float' | 'text' | 'date';

export type MicroPartition = {
  readonly rows: number;
  /** Per column: smallest and largest non-NULL value (numbers; dates as days since 1970; text as text). */
  readonly min: Readonly<Record<string, number | string | null>>;
  readonly max: Readonly<Record<string, number | string | null>>;
  readonly bytes: Readonly<Record<string, number>>;
};

export type SnowflakeTable = {
  /** Lower case in DuckDB; Snowflake shows it in upper case (created unquoted). */
  readonly name: string;
  readonly columns: ReadonlyArray<{ readonly name: string; readonly kind: ColumnKind }>;
  readonly primaryKey: readonly string[];
  readonly clustering?: readonly string[];
  readonly rows: number;
  readonly partitions: readonly MicroPartition[];
};

const KIND = { bigint: 'number', int: 'number', double: 'float', string: 'text', date: 'date' } as const;
const DUCK_TYPE = {
  bigint: 'BIGINT',
  int: 'INTEGER',
  double: 'DOUBLE',
  string: 'VARCHAR',
  date: 'DATE',
} as const;

const q = (s: string): string => `"${s.replace(/"/g, '""')}"`;

const valueOf = (kind: ColumnKind, v: unknown): number | string | null => {
  if (v === null || v === undefined) return null;
  if (kind === 'text') return typeof v === 'string' ? v : JSON.stringify(v);
  return Number(v);
};

const sizeSql = (kind: ColumnKind, c: string): string =>
  kind === 'text'
    ? `coalesce(sum(octet_length(encode(${c}))), 0)::DOUBLE`
    : `(count(${c}) * ${kind === 'date' ? 4 : 8})::DOUBLE`;

const minMaxSql = (kind: ColumnKind, c: string, f: 'min' | 'max'): string =>
  kind === 'date'
    ? `${f}(${c} - DATE '1970-01-01')::DOUBLE`
    : kind === 'text'
      ? `${f}(${c})`
      : `${f}(${c})::DOUBLE`;

/** Total bytes of a table (all columns, all micro-partitions): INFORMATION_SCHEMA.TABLES.BYTES. */
export const tableBytes = (t: SnowflakeTable): number =>
  t.partitions.reduce((n, p) => n + Object.values(p.bytes).reduce((a, b) => a + b, 0), 0);

/** Loads the corpus into `conn` (tables in `main`, stored in clustering order) and measures its micro-partitions. */
export const loadSnowflakeData = async (conn: DuckDBConnection): Promise<Map<string, SnowflakeTable>> => {
  const schema = tpchSchema();
  const tables = new Map<string, SnowflakeTable>();
  for (const name of TPCH_TABLES) {
    const spec = Object.entries(schema[name] ?? {});
    const columnsSpec = spec.map(([c, t]) => `'${c}': '${DUCK_TYPE[t]}'`).join(', ');
    const file = join(TPCH_DIR, `${name}.csv.gz`).replace(/'/g, "''");
    const primaryKey = TPCH_PRIMARY_KEYS[name] ?? [];
    const clustering = CLUSTERING[name];
    const order = [...(clustering ?? []), ...primaryKey].map(q).join(', ');
    await conn.run(
      `CREATE TABLE ${q(name)} AS SELECT * FROM read_csv('${file}', delim = '|', header = true, columns = {${columnsSpec}}) ORDER BY ${order}`,
    );
    const columns = spec.map(([c, t]) => ({ name: c, kind: KIND[t] }));
    const measured = await conn.runAndReadAll(
      `SELECT mp, count(*)::DOUBLE AS n, ${columns
        .map(
          (c, i) =>
            `${minMaxSql(c.kind, q(c.name), 'min')} AS lo${i}, ${minMaxSql(c.kind, q(c.name), 'max')} AS hi${i}, ${sizeSql(c.kind, q(c.name))} AS b${i}`,
        )
        .join(', ')}
       FROM (SELECT *, (row_number() OVER (ORDER BY ${order}) - 1) // ${ROWS_PER_PARTITION} AS mp FROM ${q(name)})
       GROUP BY mp ORDER BY mp`,
    );
    const partitions = measured.getRowsJS().map((r): MicroPartition => {
      const min: Record<string, number | string | null> = {};
      const max: Record<string, number | string | null> = {};
      const bytes: Record<string, number> = {};
      columns.forEach((c, i) => {
        min[c.name] = valueOf(c.kind, r[2 + i * 3]);
        max[c.name] = valueOf(c.kind, r[3 + i * 3]);
        bytes[c.name] = Number(r[4 + i * 3]);
      });
      return { rows: Number(r[1]), min, max, bytes };
    });
    tables.set(name, {
      name,
      columns,
      primaryKey,
      ...(clustering ? { clustering } : {}),
      rows: partitions.reduce((n, p) => n + p.rows, 0),
      partitions,
    });
  }
  return tables;
};

/** Snowflake's data type name and figures for a column, as INFORMATION_SCHEMA.COLUMNS shows them. */
const snowflakeType = (
  kind: ColumnKind,
): { type: string; precision: number | null; scale: number | null; length: number | null } => {
  switch (kind) {
    case 'number':
      return { type: 'NUMBER', precision: 38, scale: 0, length: null };
    case 'float':
      return { type: 'FLOAT', precision: null, scale: null, length: null };
    case 'text':
      return { type: 'TEXT', precision: null, scale: null, length: 16777216 };
    case 'date':
      return { type: 'DATE', precision: null, scale: null, length: null };
  }
};

const lit = (v: string | number | null): string =>
  v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`;

/**
 * Creates the stand-in's INFORMATION_SCHEMA views as DuckDB tables (`sf_information_schema_columns`,
 * `…_tables`) and the table behind `SHOW PRIMARY KEYS` (`sf_primary_keys`), for `database`.`schema`.
 */
export const createInformationSchema = async (
  conn: DuckDBConnection,
  tables: ReadonlyMap<string, SnowflakeTable>,
  database: string,
  schema: string,
): Promise<void> => {
  const columnRows: string[] = [];
  const tableRows: string[] = [];
  const keyRows: string[] = [];
  for (const t of tables.values()) {
    const up = t.name.toUpperCase();
    t.columns.forEach((c, i) => {
      const st = snowflakeType(c.kind);
      columnRows.push(
        `(${[
          database,
          schema,
          up,
          c.name.toUpperCase(),
          i + 1,
          t.primaryKey.includes(c.name) ? 'NO' : 'YES',
          st.type,
          st.precision,
          st.scale,
          st.length,
        ]
          .map((v) => lit(v))
          .join(', ')})`,
      );
    });
    const clusteringKey = t.clustering
      ? `LINEAR(${t.clustering.map((c) => c.toUpperCase()).join(', ')})`
      : null;
    tableRows.push(
      `(${[database, schema, up, 'BASE TABLE', clusteringKey, t.rows, tableBytes(t)].map((v) => lit(v)).join(', ')})`,
    );
    t.primaryKey.forEach((c, i) =>
      keyRows.push(
        `(${[
          '2026-01-01 00:00:00.000 +0000',
          database,
          schema,
          up,
          c.toUpperCase(),
          i + 1,
          `SYS_CONSTRAINT_${up}_PK`,
          'false',
          null,
        ]
          .map((v) => lit(v))
          .join(', ')})`,
      ),
    );
  }
  await conn.run(`CREATE TABLE sf_information_schema_columns (TABLE_CATALOG VARCHAR, TABLE_SCHEMA VARCHAR,
    TABLE_NAME VARCHAR, COLUMN_NAME VARCHAR, ORDINAL_POSITION BIGINT, IS_NULLABLE VARCHAR, DATA_TYPE VARCHAR,
    NUMERIC_PRECISION BIGINT, NUMERIC_SCALE BIGINT, CHARACTER_MAXIMUM_LENGTH BIGINT)`);
  await conn.run(`INSERT INTO sf_information_schema_columns VALUES ${columnRows.join(', ')}`);
  await conn.run(`CREATE TABLE sf_information_schema_tables (TABLE_CATALOG VARCHAR, TABLE_SCHEMA VARCHAR,
    TABLE_NAME VARCHAR, TABLE_TYPE VARCHAR, CLUSTERING_KEY VARCHAR, ROW_COUNT BIGINT, BYTES BIGINT)`);
  await conn.run(`INSERT INTO sf_information_schema_tables VALUES ${tableRows.join(', ')}`);
  await conn.run(`CREATE TABLE sf_primary_keys ("created_on" VARCHAR, "database_name" VARCHAR,
    "schema_name" VARCHAR, "table_name" VARCHAR, "column_name" VARCHAR, "key_sequence" BIGINT,
    "constraint_name" VARCHAR, "rely" VARCHAR, "comment" VARCHAR)`);
  await conn.run(`INSERT INTO sf_primary_keys VALUES ${keyRows.join(', ')}`);
};
