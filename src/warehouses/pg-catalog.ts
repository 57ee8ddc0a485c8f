import type { ClientBase } from 'pg';
import { catalogOf, normaliseType } from '../core/catalog.ts';
import type { Catalog, ColumnInfo, TableInfo } from '../core/catalog.ts';
import type { RelationSizes } from './explain-plan.ts';

/**
 * Tables of the role's current schema (so search_path is respected) from pg_catalog: columns in order with
 * format_type names, primary and unique constraints, and the planner's cheap estimates (reltuples,
 * pg_stats.avg_width) as stats. reltuples is -1 before the first ANALYZE: then no stats.
 */
/**
 * The role's current schema: the first schema of its search_path other than pg_catalog, which every aurora
 * transaction puts first (so that `current_schema()` itself would name pg_catalog there).
 */
const DATA_SCHEMA = `(SELECT s FROM unnest(current_schemas(false)) WITH ORDINALITY AS t(s, i)
  WHERE s <> 'pg_catalog' ORDER BY i LIMIT 1)`;

const COLUMNS_SQL = `
SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS data_type,
       NOT a.attnotnull AS nullable, c.reltuples::float8 AS reltuples, s.avg_width::float8 AS avg_width,
       (SELECT co.collname FROM pg_collation co WHERE co.oid = a.attcollation AND a.attcollation <> 100) AS collation
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = a.attname
WHERE n.nspname = ${DATA_SCHEMA} AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
ORDER BY c.relname, a.attnum`;

const KEYS_SQL = `
SELECT c.relname AS table_name, con.contype AS kind,
       array_agg(a.attname::text ORDER BY k.ord) AS columns
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE n.nspname = ${DATA_SCHEMA} AND con.contype IN ('p', 'u')
GROUP BY c.relname, con.conname, con.contype
ORDER BY c.relname, con.conname`;

type ColumnRow = {
  table_name: string;
  column_name: string;
  data_type: string;
  nullable: boolean;
  reltuples: number;
  avg_width: number | null;
  /** A non-default collation (100 is the database default). */
  collation: string | null;
};
type KeyRow = { table_name: string; kind: 'p' | 'u'; columns: string[] };

export const readPgCatalog = async (client: ClientBase): Promise<Catalog> => {
  const cols = await client.query<ColumnRow>(COLUMNS_SQL);
  const keys = await client.query<KeyRow>(KEYS_SQL);
  const byTable = new Map<string, { columns: ColumnInfo[]; rows: number; bytes: Record<string, number> }>();
  for (const r of cols.rows) {
    const t = byTable.get(r.table_name) ?? { columns: [], rows: r.reltuples, bytes: {} };
    t.columns.push({
      name: r.column_name,
      type: normaliseType(r.data_type),
      rawType: r.data_type,
      nullable: r.nullable,
      ...(r.collation === null ? {} : { collation: r.collation }),
    });
    if (r.avg_width !== null && r.reltuples >= 0) t.bytes[r.column_name] = r.avg_width * r.reltuples;
    byTable.set(r.table_name, t);
  }
  const tables: TableInfo[] = [...byTable].map(([name, t]) => {
    const own = keys.rows.filter((k) => k.table_name === name);
    const pk = own.find((k) => k.kind === 'p')?.columns;
    const unique = own.filter((k) => k.kind === 'u').map((k) => k.columns);
    return {
      name,
      columns: t.columns,
      ...(pk ? { primaryKey: pk } : {}),
      ...(unique.length > 0 ? { uniqueKeys: unique } : {}),
      ...(t.rows >= 0 ? { stats: { rows: t.rows, columnBytes: t.bytes } } : {}),
    };
  });
  return catalogOf(tables);
};

/** pg_class pages and rows of the named relations, resolved through search_path like the query was. */
export const readPgRelationSizes = async (
  client: ClientBase,
  names: readonly string[],
): Promise<RelationSizes> => {
  if (names.length === 0) return new Map();
  const res = await client.query<{ name: string; pages: number; rows: number }>(
    `SELECT x AS name, c.relpages::float8 AS pages, c.reltuples::float8 AS rows
     FROM unnest($1::text[]) AS x JOIN pg_class c ON c.oid = to_regclass(quote_ident(x))`,
    [names],
  );
  return new Map(res.rows.map((r) => [r.name.toLowerCase(), { pages: r.pages, rows: Math.max(0, r.rows) }]));
};
