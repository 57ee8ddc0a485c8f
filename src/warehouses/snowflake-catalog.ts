import { catalogOf, normaliseType } from '../core/catalog.ts';
import type { Catalog, ColumnInfo, ColumnType, TableInfo } from '../core/catalog.ts';

/**
 * Snowflake folds unquoted identifiers to upper case; the gateway shows such names in lower case, as queries
 * usually write them (as Snowflake's SQLAlchemy dialect does). A name with lower-case letters or characters an
 * unquoted identifier cannot have was created quoted and stays as it is.
 */
export const gatewayName = (name: string): string =>
  /^[A-Z_][A-Z0-9_$]*$/.test(name) ? name.toLowerCase() : name;

/** A name as Snowflake stores it, for a literal in a metadata query: unquoted identifiers fold to upper case. */
export const snowflakeName = (name: string): string =>
  /^[A-Za-z_][A-Za-z0-9_$]*$/.test(name) ? name.toUpperCase() : name;

export type Row = Readonly<Record<string, unknown>>;

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const int = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** A column of INFORMATION_SCHEMA.COLUMNS: NUMBER with scale 0 is an integer, other NUMBERs decimals. */
const columnOf = (r: Row): ColumnInfo => {
  const raw = text(r.DATA_TYPE);
  const scale = int(r.NUMERIC_SCALE);
  const precision = int(r.NUMERIC_PRECISION);
  const isNumber = raw === 'NUMBER' || raw === 'DECIMAL' || raw === 'NUMERIC';
  const type: ColumnType = isNumber ? (scale === 0 ? 'int64' : 'numeric') : normaliseType(raw);
  return {
    name: gatewayName(text(r.COLUMN_NAME)),
    type,
    rawType: isNumber && precision !== undefined ? `NUMBER(${precision},${scale ?? 0})` : raw,
    nullable: text(r.IS_NULLABLE) !== 'NO',
  };
};

/** `LINEAR(L_SHIPDATE, L_ORDERKEY)` → the key's columns; undefined when a key is an expression. */
export const clusteringOf = (key: string): string[] | undefined => {
  const m = /^LINEAR\((.*)\)$/i.exec(key.trim());
  if (!m) return undefined;
  const parts = (m[1] ?? '').split(',').map((p) => p.trim());
  if (parts.some((p) => !/^("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)$/.test(p))) return undefined;
  return parts.map((p) => (p.startsWith('"') ? p.slice(1, -1) : gatewayName(p.toUpperCase())));
};

/**
 * The catalog from Snowflake's metadata: INFORMATION_SCHEMA.COLUMNS (names, types, nullability),
 * INFORMATION_SCHEMA.TABLES (clustering key, ROW_COUNT, BYTES) and `SHOW PRIMARY KEYS` (Snowflake keeps
 * primary keys as declared, not enforced; its optimizer and the rewrite rules trust them). Rows are in the
 * shapes those return; views (no ROW_COUNT) get no statistics.
 */
export const snowflakeCatalogOf = (
  columns: readonly Row[],
  tables: readonly Row[],
  primaryKeys: readonly Row[],
): Catalog => {
  const byTable = new Map<string, Row[]>();
  for (const r of columns) {
    const t = text(r.TABLE_NAME);
    byTable.set(t, [...(byTable.get(t) ?? []), r]);
  }
  const keys = new Map<string, Array<{ column: string; seq: number }>>();
  for (const r of primaryKeys) {
    const t = text(r.table_name);
    keys.set(t, [...(keys.get(t) ?? []), { column: text(r.column_name), seq: int(r.key_sequence) ?? 0 }]);
  }
  const meta = new Map(tables.map((r) => [text(r.TABLE_NAME), r]));
  const infos: TableInfo[] = [];
  for (const [name, cols] of byTable) {
    const ordered = [...cols].sort((a, b) => (int(a.ORDINAL_POSITION) ?? 0) - (int(b.ORDINAL_POSITION) ?? 0));
    const pk = (keys.get(name) ?? []).sort((a, b) => a.seq - b.seq).map((k) => gatewayName(k.column));
    const m = meta.get(name);
    const clustering = m && typeof m.CLUSTERING_KEY === 'string' ? clusteringOf(m.CLUSTERING_KEY) : undefined;
    const rows = m ? int(m.ROW_COUNT) : undefined;
    const bytes = m ? int(m.BYTES) : undefined;
    infos.push({
      name: gatewayName(name),
      columns: ordered.map(columnOf),
      ...(pk.length > 0 ? { primaryKey: pk } : {}),
      ...(clustering && clustering.length > 0 ? { clustering } : {}),
      ...(rows !== undefined
        ? { stats: { rows, columnBytes: {}, ...(bytes !== undefined ? { bytes } : {}) } }
        : {}),
    });
  }
  return catalogOf(infos);
};
