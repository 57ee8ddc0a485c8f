import type { Catalog, ColumnInfo, Partitioning, TableInfo } from './catalog.ts';
import { catalogOf, normaliseType } from './catalog.ts';
import { isRecord } from './sql/tree.ts';

export type CatalogFileResult = { ok: true; catalog: Catalog } | { ok: false; message: string };

const GRANULARITIES = new Set(['day', 'month', 'year']);

const stringList = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;

const columnsOf = (table: string, v: unknown): ColumnInfo[] | string => {
  if (!isRecord(v)) return `table ${table}: columns must be an object of column → type`;
  const cols: ColumnInfo[] = [];
  for (const [name, spec] of Object.entries(v)) {
    // A type, or {type, collation} where the collation matters (MySQL string columns).
    const type = isRecord(spec) ? spec.type : spec;
    const collation = isRecord(spec) ? spec.collation : undefined;
    if (typeof type !== 'string' || (collation !== undefined && typeof collation !== 'string'))
      return `table ${table}, column ${name}: the type must be a string or {type, collation}`;
    cols.push({ name, type: normaliseType(type), rawType: type, ...(collation ? { collation } : {}) });
  }
  return cols;
};

const richTable = (name: string, v: Record<string, unknown>): TableInfo | string => {
  const columns = columnsOf(name, v.columns);
  if (typeof columns === 'string') return columns;
  const primaryKey = v.primaryKey === undefined ? undefined : stringList(v.primaryKey);
  if (v.primaryKey !== undefined && !primaryKey) return `table ${name}: primaryKey must be a list of columns`;
  const uniqueKeys: string[][] = [];
  for (const k of Array.isArray(v.uniqueKeys) ? v.uniqueKeys : []) {
    const cols = stringList(k);
    if (!cols) return `table ${name}: uniqueKeys must be a list of column lists`;
    uniqueKeys.push(cols);
  }
  let partitioning: Partitioning | undefined;
  if (v.partitioning !== undefined) {
    const p = v.partitioning;
    if (!isRecord(p) || typeof p.column !== 'string' || !GRANULARITIES.has(String(p.granularity)))
      return `table ${name}: partitioning must be {column, granularity: day|month|year}`;
    partitioning = { column: p.column, granularity: p.granularity as Partitioning['granularity'] };
  }
  return {
    name,
    columns,
    ...(primaryKey ? { primaryKey } : {}),
    ...(uniqueKeys.length > 0 ? { uniqueKeys } : {}),
    ...(partitioning ? { partitioning } : {}),
  };
};

/**
 * Reads a schema file's parsed JSON into a Catalog. Two forms (see src/core/rewrite/README.md):
 * the corpus form `{table: {column: type}}`, and the rich form `{tables: {table: {columns: {column: type or
 * {type, collation}},
 * primaryKey?: [..], uniqueKeys?: [[..]], partitioning?: {column, granularity}}}}` that lets the key-aware
 * rules (join elimination) fire.
 *
 * @example readCatalogFile({ orders: { o_orderkey: 'bigint' } }) // { ok: true, catalog }
 */
export const readCatalogFile = (json: unknown): CatalogFileResult => {
  if (!isRecord(json)) return { ok: false, message: 'the schema file must hold a JSON object' };
  const rich =
    isRecord(json.tables) && Object.values(json.tables).every((t) => isRecord(t) && 'columns' in t);
  const tables: TableInfo[] = [];
  for (const [name, v] of Object.entries(rich ? (json.tables as Record<string, unknown>) : json)) {
    const t = rich && isRecord(v) ? richTable(name, v) : columnsOf(name, v);
    if (typeof t === 'string') return { ok: false, message: t };
    tables.push(Array.isArray(t) ? { name, columns: t } : t);
  }
  return { ok: true, catalog: catalogOf(tables) };
};
