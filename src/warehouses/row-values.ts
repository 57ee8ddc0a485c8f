import { DuckDBTypeId, JsonDuckDBValueConverter } from '@duckdb/node-api';
import type { DuckDBValueConverter } from '@duckdb/node-api';
import { rawJson } from '../core/verify/raw-json.ts';

/**
 * A warehouse's values in the JSON model of `RowTap` (adapter.ts): what shadow verification fingerprints.
 * Numbers a double cannot hold exactly travel as their exact text, so `1` (INTEGER) and `1.0` (DECIMAL)
 * compare equal as POST /verify would, and `9007199254740993` is not rounded.
 */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A numeric column's text as an exact number, or as text when it has no JSON form (NaN, Infinity). */
export const exactNumber = (text: string): unknown => {
  const t = text.trim();
  return JSON_NUMBER.test(t) ? rawJson(t) : t;
};

const DUCKDB_EXACT = new Set<number>([
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.BIGNUM,
]);

/** DuckDB's own JSON conversion, except that 64/128-bit integers and decimals stay exact numbers. */
export const duckDbJsonValue: DuckDBValueConverter<unknown> = (value, type) =>
  value === null
    ? null
    : DUCKDB_EXACT.has(type.typeId)
      ? exactNumber(String(value))
      : JsonDuckDBValueConverter(
          value,
          type,
          duckDbJsonValue as unknown as Parameters<typeof JsonDuckDBValueConverter>[2],
        );

/** PostgreSQL type OIDs read as numbers (int2/4/8, oid, float4/8, numeric) and booleans. */
const PG_NUMERIC = new Set([20, 21, 23, 26, 700, 701, 1700]);
const PG_BOOL = 16;

/** A PostgreSQL text-format value by its column's type OID. */
export const pgJsonValue = (text: string | null, typeId: number): unknown =>
  text === null
    ? null
    : PG_NUMERIC.has(typeId)
      ? exactNumber(text)
      : typeId === PG_BOOL
        ? text === 't'
        : text;

/** MySQL column types read as numbers: DECIMAL, TINY, SHORT, LONG, FLOAT, DOUBLE, LONGLONG, INT24, YEAR, NEWDECIMAL. */
const MYSQL_NUMERIC = new Set([0, 1, 2, 3, 4, 5, 8, 9, 13, 246]);
const MYSQL_BINARY_CHARSET = 63;
const MYSQL_BIT = 16;

/** A MySQL text-protocol value (raw, `typeCast: false`) by its column's type and character set. */
export const mysqlJsonValue = (
  raw: Buffer | string | null,
  field: { readonly columnType?: number; readonly characterSet?: number },
): unknown => {
  if (raw === null) return null;
  const type = field.columnType ?? -1;
  if (typeof raw !== 'string' && (type === MYSQL_BIT || field.characterSet === MYSQL_BINARY_CHARSET)) {
    return MYSQL_NUMERIC.has(type) ? exactNumber(raw.toString('latin1')) : `\\x${raw.toString('hex')}`;
  }
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  return MYSQL_NUMERIC.has(type) ? exactNumber(text) : text;
};

/** A BigQuery schema field, as getQueryResults reports it. */
export type BigQueryField = {
  readonly name?: string | null;
  readonly type?: string | null;
  readonly mode?: string | null;
  readonly fields?: readonly BigQueryField[] | null;
};

const valueText = (v: unknown): string =>
  typeof v === 'object' && v !== null && 'value' in v ? String(v.value) : String(v);

/**
 * A value of a BigQuery result row (the client's parsed form, `wrapIntegers: true`) by its schema field:
 * INT64 and NUMERIC stay exact, dates and times their canonical text, BYTES base64, STRUCTs objects.
 */
export const bigQueryJsonValue = (v: unknown, field: BigQueryField, inArray = false): unknown => {
  if (v === null || v === undefined) return null;
  if (field.mode === 'REPEATED' && !inArray)
    return Array.isArray(v) ? v.map((x) => bigQueryJsonValue(x, field, true)) : null;
  switch (field.type ?? '') {
    case 'INTEGER':
    case 'INT64':
    case 'NUMERIC':
    case 'BIGNUMERIC':
      return exactNumber(valueText(v));
    case 'FLOAT':
    case 'FLOAT64':
      return typeof v === 'number' && Number.isFinite(v) ? v : exactNumber(valueText(v));
    case 'BOOLEAN':
    case 'BOOL':
      return v === true || v === 'true';
    case 'BYTES':
      return Buffer.isBuffer(v) ? v.toString('base64') : valueText(v);
    case 'RECORD':
    case 'STRUCT': {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(
        (field.fields ?? []).map((f) => [f.name ?? '', bigQueryJsonValue(o[f.name ?? ''], f)]),
      );
    }
    default:
      return valueText(v);
  }
};
