import { isRecord, kindOf } from '../tree.ts';
import { payloadOf, sqlString, stringValue } from './nodes.ts';
import { dataTypeName } from './static-type.ts';
import type { Call, CallContext, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse } from './types.ts';

/**
 * BigQuery JSON_VALUE: a scalar as text, NULL for objects and arrays. The library's `->` keeps JSON (the
 * string "x" comes back quoted).
 */
const JSON_VALUE =
  "CASE WHEN json_type({0}, {1}) IN ('OBJECT', 'ARRAY') THEN NULL ELSE json_extract_string({0}, {1}) END";

/** BigQuery JSON_TYPE names (DuckDB reports SQL types: UBIGINT, VARCHAR, …). */
const JSON_TYPE =
  "CASE json_type({0}) WHEN 'OBJECT' THEN 'object' WHEN 'ARRAY' THEN 'array' WHEN 'VARCHAR' THEN 'string' " +
  "WHEN 'BOOLEAN' THEN 'boolean' WHEN 'NULL' THEN 'null' ELSE 'number' END";

const VARIANT_FUNCTIONS = new Set(['PARSE_JSON', 'TRY_PARSE_JSON', 'GET', 'GET_PATH', 'OBJECT_CONSTRUCT']);

/** Whether a Snowflake expression is semi-structured (VARIANT): a path, GET, PARSE_JSON, a FLATTEN value. */
const isVariant = (node: unknown, ctx: CallContext): boolean => {
  const kind = kindOf(node);
  const p = payloadOf(node);
  if (kind === undefined || p === undefined) return false;
  if (kind === 'j_s_o_n_extract' || kind === 'parse_json') return true;
  if (kind === 'function' && typeof p.name === 'string') return VARIANT_FUNCTIONS.has(p.name.toUpperCase());
  if (kind === 'subscript' || kind === 'paren') return isVariant(p.this, ctx);
  if (kind === 'cast') return dataTypeName(p.to) === 'VARIANT';
  if (kind === 'column' && isRecord(p.table) && typeof p.table.name === 'string' && isRecord(p.name)) {
    const col = String(p.name.name).toUpperCase();
    return ctx.flattenAliases.has(p.table.name.toUpperCase()) && (col === 'VALUE' || col === 'THIS');
  }
  return false;
};

/** DuckDB types for Snowflake cast targets of semi-structured values. */
const VARIANT_TARGETS: Record<string, string> = {
  INT: 'CAST(CAST({x} AS DECIMAL(38, 0)) AS BIGINT)',
  INTEGER: 'CAST(CAST({x} AS DECIMAL(38, 0)) AS BIGINT)',
  BIGINT: 'CAST(CAST({x} AS DECIMAL(38, 0)) AS BIGINT)',
  NUMBER: 'CAST(CAST({x} AS DECIMAL(38, 0)) AS BIGINT)',
  FLOAT: 'CAST({x} AS DOUBLE)',
  DOUBLE: 'CAST({x} AS DOUBLE)',
  BOOLEAN: 'CAST({x} AS BOOLEAN)',
  DATE: 'CAST({x} AS DATE)',
  TIMESTAMP: 'CAST({x} AS TIMESTAMP)',
  TIMESTAMPNTZ: 'CAST({x} AS TIMESTAMP)',
  TEXT: '{x}',
  STRING: '{x}',
  VARCHAR: '{x}',
};

/**
 * Snowflake `variant::TYPE`: the value's text (a JSON string without its quotes) converted to the type. The
 * library casts the JSON itself, so `v:name::STRING` comes back as "x" with its quotes.
 */
const snowflakeCast = (c: Call): Translation => {
  if (!isVariant(c.payload.this, c.ctx)) return keep;
  const target = dataTypeName(c.payload.to);
  const t = target === undefined ? undefined : VARIANT_TARGETS[target];
  if (t === undefined)
    return refuse(
      `a cast of a semi-structured value to ${target ?? 'this type'} is not supported in local mode`,
    );
  const text = "json_extract_string({0}, '$')";
  const sql = t.replace('{x}', () => text);
  return duckdb(c.kind === 'try_cast' ? sql.replace(/^CAST\(/, 'TRY_CAST(') : sql, c.payload.this);
};

/**
 * Snowflake OBJECT_CONSTRUCT(k1, v1, …): a JSON object without the pairs whose key or value is NULL (the
 * library makes a DuckDB STRUCT, and keeps NULLs).
 */
const objectConstruct = (c: Call): Translation => {
  if (c.args.length % 2 !== 0 || c.args.length === 0)
    return refuse('OBJECT_CONSTRUCT takes key-value pairs in local mode');
  const pairs = Array.from(
    { length: c.args.length / 2 },
    (_, i) => `{'key': CAST({${2 * i}} AS VARCHAR), 'value': to_json({${2 * i + 1}})}`,
  );
  return duckdb(
    `to_json(map_from_entries(list_filter([${pairs.join(', ')}], sg_e -> sg_e.key IS NOT NULL AND sg_e.value IS NOT NULL)))`,
    ...c.args,
  );
};

/** A PostgreSQL text-array path (`'{a,b,0}'`) as a JSONPath (`$.a.b[0]`), or undefined. */
export const postgresJsonPath = (path: string): string | undefined => {
  const m = /^\{(.*)\}$/s.exec(path.trim());
  if (!m) return undefined;
  const inner = m[1] as string;
  if (inner === '') return '$';
  const items: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|([^,"]*?))\s*(?:,|$)/gy;
  let x: RegExpExecArray | null;
  while (re.lastIndex < inner.length && (x = re.exec(inner)) !== null) {
    const item = x[1] !== undefined ? x[1].replace(/\\(.)/g, '$1') : (x[2] ?? '');
    items.push(/^\d+$/.test(item) ? `[${item}]` : `."${item.replace(/"/g, '\\"')}"`);
    if (x[0] === '') return undefined;
  }
  return `$${items.join('')}`;
};

/** PostgreSQL `#>` (JSON) and `#>>` (text) with a constant path. */
const postgresPathOperator = (c: Call, asText: boolean): Translation => {
  const pathNode: unknown = asText
    ? c.payload.path
    : Array.isArray(c.payload.paths)
      ? (c.payload.paths as unknown[])[0]
      : undefined;
  const text = stringValue(pathNode);
  const jsonPath = text === undefined ? undefined : postgresJsonPath(text);
  if (jsonPath === undefined) return refuse(`${asText ? '#>>' : '#>'} needs a constant path in local mode`);
  return duckdb(
    `${asText ? 'json_extract_string' : 'json_extract'}({0}, ${sqlString(jsonPath)})`,
    c.payload.this,
  );
};

/** PostgreSQL json_agg(x ORDER BY …): a JSON array (DuckDB's json_group_array is a macro without ORDER BY). */
const postgresJsonAgg = (c: Call): Translation => {
  const order = Array.isArray(c.payload.order_by)
    ? (c.payload.order_by as Array<Record<string, unknown>>)
    : [];
  const keys = order.map((o, i) => {
    const desc = o.desc === true;
    const nullsFirst = typeof o.nulls_first === 'boolean' ? o.nulls_first : desc;
    return `{${i + 1}} ${desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`;
  });
  if (c.ctx.inWindow) return refuse('json_agg as a window function is not supported in local mode');
  const distinct = c.payload.distinct === true ? 'DISTINCT ' : '';
  return duckdb(
    `to_json(array_agg(${distinct}{0}${keys.length > 0 ? ` ORDER BY ${keys.join(', ')}` : ''}))`,
    c.args[0],
    ...order.map((o) => o.this),
  );
};

export const SEMI_STRUCTURED: RuleSet = {
  bigquery: [
    { names: ['STRUCT'], family: 'structs' },
    {
      kinds: ['json_value'],
      names: ['JSON_VALUE'],
      family: 'semi-structured',
      why: 'the library returns JSON (quoted strings, objects) instead of a scalar string',
      translate: (c) => duckdb(JSON_VALUE, c.payload.this, c.payload.path),
    },
    {
      names: ['JSON_VALUE_ARRAY'],
      family: 'semi-structured',
      why: 'DuckDB has no JSON_VALUE_ARRAY',
      translate: (c) =>
        duckdb(
          "json_extract_string({0}, {1} || '[*]')",
          c.args[0],
          c.args[1] ?? { literal: { literal_type: 'string', value: '$' } },
        ),
    },
    {
      kinds: ['json_type'],
      names: ['JSON_TYPE'],
      family: 'semi-structured',
      why: 'DuckDB names SQL types',
      translate: (c) => duckdb(JSON_TYPE, c.payload.this),
    },
    {
      kinds: ['json_query', 'json_extract', 'json_extract_scalar', 'parse_json'],
      names: ['JSON_QUERY', 'JSON_EXTRACT', 'JSON_EXTRACT_SCALAR', 'PARSE_JSON', 'TO_JSON_STRING'],
      family: 'semi-structured',
    },
  ],
  snowflake: [
    {
      kinds: ['cast', 'try_cast'],
      names: ['CAST', '::'],
      family: 'semi-structured',
      why: "a semi-structured value's text must be unquoted before the cast",
      translate: snowflakeCast,
    },
    {
      names: ['OBJECT_CONSTRUCT'],
      family: 'semi-structured',
      why: 'NULL pairs are left out of the object',
      translate: objectConstruct,
    },
    {
      kinds: ['j_s_o_n_extract', 'parse_json'],
      names: ['PARSE_JSON', 'TRY_PARSE_JSON', 'GET_PATH', 'JSON_EXTRACT_PATH_TEXT'],
      family: 'semi-structured',
    },
  ],
  postgres: [
    { kinds: ['json_extract'], names: ['->', 'JSON_EXTRACT_PATH_TEXT'], family: 'semi-structured' },
    {
      kinds: ['json_extract_scalar'],
      names: ['->>', '#>>'],
      family: 'semi-structured',
      why: "the library reads #>>'s text-array path ('{a,b}') as one key",
      translate: (c) => (c.payload.hash_arrow_syntax === true ? postgresPathOperator(c, true) : keep),
    },
    {
      kinds: ['json_extract_path'],
      names: ['#>'],
      family: 'semi-structured',
      why: 'DuckDB has no json_extract_path; the text-array path becomes a JSONPath',
      translate: (c) => postgresPathOperator(c, false),
    },
    {
      names: ['JSON_ARRAY_LENGTH', 'JSONB_ARRAY_LENGTH'],
      family: 'semi-structured',
      why: 'DuckDB has no jsonb_array_length',
      translate: (c) => duckdb('json_array_length({0})', c.args[0]),
    },
    {
      names: ['JSON_TYPEOF', 'JSONB_TYPEOF'],
      family: 'semi-structured',
      why: 'DuckDB names SQL types (UBIGINT, VARCHAR) where PostgreSQL says number, string',
      translate: (c) => duckdb(JSON_TYPE, c.args[0]),
    },
    {
      names: ['JSON_BUILD_OBJECT', 'JSONB_BUILD_OBJECT'],
      family: 'semi-structured',
      why: 'the library has no DuckDB translation',
      translate: (c) => duckdb(`json_object(${c.args.map((_, i) => `{${i}}`).join(', ')})`, ...c.args),
    },
    {
      names: ['JSON_AGG', 'JSONB_AGG'],
      family: 'semi-structured',
      why: "DuckDB's json_group_array takes no ORDER BY",
      translate: postgresJsonAgg,
    },
  ],
};
