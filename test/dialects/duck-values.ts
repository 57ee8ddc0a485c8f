import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { DuckDBTypeId } from '@duckdb/node-api';
import type { Got } from './want.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A scalar JSON value as text (objects never reach here: their types are lists and structs). */
const text = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

const INT_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
]);
const FRAC_TYPES = new Set<DuckDBTypeId>([DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE, DuckDBTypeId.DECIMAL]);

/** A DuckDB value (in its JSON form) as a typed `Got`, following its column type into lists and structs. */
const toGot = (type: DuckDBType, value: Json): Got => {
  if (value === null) return { c: 'null' };
  const id = type.typeId;
  if (INT_TYPES.has(id)) return { c: 'int', v: value as number | string };
  if (FRAC_TYPES.has(id)) return { c: 'frac', v: value as number | string };
  if (id === DuckDBTypeId.BOOLEAN) return { c: 'bool', v: value as boolean };
  if (id === DuckDBTypeId.VARCHAR) {
    const alias = (type as { alias?: string }).alias;
    return { c: alias === 'JSON' ? 'json' : 'str', v: text(value) };
  }
  if (id === DuckDBTypeId.DATE) return { c: 'date', v: text(value) };
  if (
    id === DuckDBTypeId.TIMESTAMP ||
    id === DuckDBTypeId.TIMESTAMP_S ||
    id === DuckDBTypeId.TIMESTAMP_MS ||
    id === DuckDBTypeId.TIMESTAMP_NS
  )
    return { c: 'ts', v: text(value) };
  if (id === DuckDBTypeId.TIMESTAMP_TZ) return { c: 'tstz', v: text(value) };
  if (id === DuckDBTypeId.TIME) return { c: 'time', v: text(value) };
  if (id === DuckDBTypeId.LIST || id === DuckDBTypeId.ARRAY) {
    const child = (type as unknown as { valueType: DuckDBType }).valueType;
    return { c: 'list', v: (value as Json[]).map((x) => toGot(child, x)) };
  }
  if (id === DuckDBTypeId.STRUCT) {
    const st = type as unknown as { entryNames: string[]; entryTypes: DuckDBType[] };
    const obj = value as Record<string, Json>;
    return {
      c: 'struct',
      v: Object.fromEntries(
        st.entryNames.map((n, i) => [n, toGot(st.entryTypes[i] as DuckDBType, obj[n] ?? null)]),
      ),
    };
  }
  return { c: 'other', v: value };
};

export type EngineRows = { columns: string[]; rows: Got[][] };

/** Runs one statement and reads every row back as typed values. */
export const runDuck = async (conn: DuckDBConnection, sql: string): Promise<EngineRows> => {
  const reader = await conn.runAndReadAll(sql);
  const types = reader.columnTypes();
  const rows = reader.getRowsJson() as Json[][];
  return {
    columns: reader.columnNames(),
    rows: rows.map((r) => r.map((x, i) => toGot(types[i] as DuckDBType, x))),
  };
};
