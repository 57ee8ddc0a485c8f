import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { TPCH_DIR, TPCH_PRIMARY_KEYS, TPCH_TABLES, tpchSchema } from './load-tpch.ts';

/**
 * The stand-in's dataset: the TPC-H corpus in DuckDB, described as BigQuery tables (types, partitioning,
 * clustering, primary keys), with the logical bytes BigQuery bills (INT64/FLOAT64/DATE 8, STRING 2 + UTF-8
 * length, NULL 0) measured per column and per partition, so that dry runs give exact figures.
 */
export type StandinPartitioning =
  | { readonly kind: 'time'; readonly type: 'DAY' | 'MONTH'; readonly field: string }
  | { readonly kind: 'ingestion'; readonly type: 'DAY' }
  | {
      readonly kind: 'range';
      readonly field: string;
      readonly start: number;
      readonly end: number;
      readonly interval: number;
    };

export type StandinTable = {
  readonly name: string;
  readonly columns: ReadonlyArray<{
    readonly name: string;
    readonly type: 'INTEGER' | 'FLOAT' | 'STRING' | 'DATE';
  }>;
  readonly primaryKey: readonly string[];
  readonly partitioning?: StandinPartitioning;
  readonly clustering?: readonly string[];
  readonly rows: number;
  /** Logical bytes per partition id (BigQuery's: `199502`, `19950201`, `5`, or `__UNPARTITIONED__`), per column. */
  readonly bytes: ReadonlyMap<string, Readonly<Record<string, number>>>;
};

/** How the stand-in partitions the corpus: one table of each kind BigQuery has. */
const LAYOUT: Readonly<Record<string, { partitioning?: StandinPartitioning; clustering?: string[] }>> = {
  orders: { partitioning: { kind: 'time', type: 'MONTH', field: 'o_orderdate' }, clustering: ['o_custkey'] },
  lineitem: { partitioning: { kind: 'time', type: 'DAY', field: 'l_shipdate' }, clustering: ['l_orderkey'] },
  customer: { partitioning: { kind: 'range', field: 'c_nationkey', start: 0, end: 25, interval: 5 } },
  part: { partitioning: { kind: 'ingestion', type: 'DAY' } },
};

const BQ_TYPE = {
  bigint: 'INTEGER',
  int: 'INTEGER',
  double: 'FLOAT',
  string: 'STRING',
  date: 'DATE',
} as const;
const DUCK_TYPE = {
  bigint: 'BIGINT',
  int: 'INTEGER',
  double: 'DOUBLE',
  string: 'VARCHAR',
  date: 'DATE',
} as const;

const q = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** The partition id of a row, as SQL (BigQuery's ids: YYYYMM, YYYYMMDD, the range start). */
const partitionIdSql = (p: StandinPartitioning | undefined): string => {
  if (!p || p.kind === 'ingestion') return `'__UNPARTITIONED__'`;
  if (p.kind === 'time')
    return `coalesce(strftime(${q(p.field)}, '${p.type === 'MONTH' ? '%Y%m' : '%Y%m%d'}'), '__NULL__')`;
  const c = q(p.field);
  return `CASE WHEN ${c} IS NULL THEN '__NULL__' WHEN ${c} >= ${p.start} AND ${c} < ${p.end}
    THEN (${p.start} + floor((${c} - ${p.start}) / ${p.interval}) * ${p.interval})::BIGINT::VARCHAR
    ELSE '__UNPARTITIONED__' END`;
};

const sizeSql = (type: StandinTable['columns'][number]['type'], c: string): string =>
  type === 'STRING'
    ? `coalesce(sum(CASE WHEN ${c} IS NULL THEN 0 ELSE 2 + octet_length(encode(${c})) END), 0)::DOUBLE`
    : `(count(${c}) * 8)::DOUBLE`;

/** Loads the corpus into `conn` (tables in `main`) and measures it. */
export const loadStandinData = async (conn: DuckDBConnection): Promise<Map<string, StandinTable>> => {
  const schema = tpchSchema();
  const tables = new Map<string, StandinTable>();
  for (const name of TPCH_TABLES) {
    const spec = Object.entries(schema[name] ?? {});
    const columnsSpec = spec.map(([c, t]) => `'${c}': '${DUCK_TYPE[t]}'`).join(', ');
    const file = join(TPCH_DIR, `${name}.csv.gz`).replace(/'/g, "''");
    await conn.run(
      `CREATE TABLE ${q(name)} AS SELECT * FROM read_csv('${file}', delim = '|', header = true, columns = {${columnsSpec}})`,
    );
    const columns = spec.map(([c, t]) => ({ name: c, type: BQ_TYPE[t] }));
    const layout = LAYOUT[name] ?? {};
    const measured = await conn.runAndReadAll(
      `SELECT ${partitionIdSql(layout.partitioning)} AS pid, count(*)::DOUBLE AS n, ${columns
        .map((c, i) => `${sizeSql(c.type, q(c.name))} AS c${i}`)
        .join(', ')} FROM ${q(name)} GROUP BY 1`,
    );
    const bytes = new Map<string, Record<string, number>>();
    let rows = 0;
    for (const r of measured.getRowsJS()) {
      rows += Number(r[1]);
      bytes.set(
        typeof r[0] === 'string' ? r[0] : '__NULL__',
        Object.fromEntries(columns.map((c, i) => [c.name, Number(r[i + 2])])),
      );
    }
    tables.set(name, {
      name,
      columns,
      primaryKey: TPCH_PRIMARY_KEYS[name] ?? [],
      ...(layout.partitioning ? { partitioning: layout.partitioning } : {}),
      ...(layout.clustering ? { clustering: layout.clustering } : {}),
      rows,
      bytes,
    });
  }
  return tables;
};

/** The Table resource tables.get answers with. */
export const tableResource = (project: string, dataset: string, t: StandinTable): Record<string, unknown> => {
  const p = t.partitioning;
  let total = 0;
  for (const cols of t.bytes.values()) for (const v of Object.values(cols)) total += v;
  return {
    kind: 'bigquery#table',
    id: `${project}:${dataset}.${t.name}`,
    tableReference: { projectId: project, datasetId: dataset, tableId: t.name },
    type: 'TABLE',
    schema: {
      fields: t.columns.map((c) => ({
        name: c.name,
        type: c.type,
        mode: t.primaryKey.includes(c.name) ? 'REQUIRED' : 'NULLABLE',
      })),
    },
    numRows: String(t.rows),
    numBytes: String(total),
    ...(p?.kind === 'time' ? { timePartitioning: { type: p.type, field: p.field } } : {}),
    ...(p?.kind === 'ingestion' ? { timePartitioning: { type: p.type } } : {}),
    ...(p?.kind === 'range'
      ? {
          rangePartitioning: {
            field: p.field,
            range: { start: String(p.start), end: String(p.end), interval: String(p.interval) },
          },
        }
      : {}),
    ...(t.clustering ? { clustering: { fields: [...t.clustering] } } : {}),
    ...(t.primaryKey.length > 0 ? { tableConstraints: { primaryKey: { columns: [...t.primaryKey] } } } : {}),
  };
};
