import { isRecord, kindOf, subqueryNode } from '../tree.ts';
import { numberValue, payloadOf, wordValue } from './nodes.ts';
import type { Call, LocalRule, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse, replaceWith } from './types.ts';

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * BigQuery ARRAY_AGG with ORDER BY, LIMIT, IGNORE NULLS or DISTINCT. DuckDB has no LIMIT inside an aggregate
 * (the list is sliced), and BigQuery orders NULLs first ascending and last descending unless told otherwise.
 */
const arrayAgg =
  (nullsFirstWhenAscending: boolean) =>
  (c: Call): Translation => {
    const p = c.payload;
    const order = Array.isArray(p.order_by) ? (p.order_by as Array<Record<string, unknown>>) : [];
    const limit = p.limit === undefined || p.limit === null ? undefined : numberValue(p.limit);
    if (p.limit !== undefined && p.limit !== null && (limit === undefined || limit < 0))
      return refuse('ARRAY_AGG needs a constant LIMIT in local mode');
    if (order.length === 0 && limit === undefined && p.ignore_nulls !== true) return keep;
    if (limit !== undefined && c.ctx.inWindow) return refuse('ARRAY_AGG with LIMIT as a window function');
    const keys = order.map((o, i) => {
      const desc = o.desc === true;
      const nullsFirst =
        typeof o.nulls_first === 'boolean' ? o.nulls_first : desc !== nullsFirstWhenAscending;
      return `{${i + 1}} ${desc ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`;
    });
    const distinct = p.distinct === true ? 'DISTINCT ' : '';
    let agg = `array_agg(${distinct}{0}${keys.length > 0 ? ` ORDER BY ${keys.join(', ')}` : ''})`;
    if (p.ignore_nulls === true) agg += ' FILTER (WHERE {0} IS NOT NULL)';
    if (limit !== undefined) agg = `list_slice(${agg}, 1, ${limit})`;
    return duckdb(agg, p.this, ...order.map((o) => o.this));
  };

/** BigQuery orders NULLs first ascending and last descending; PostgreSQL the other way round. */
const bigqueryArrayAgg = arrayAgg(true);
const postgresArrayAgg = arrayAgg(false);

/**
 * BigQuery array subscripts: OFFSET (0-based) and ORDINAL (1-based) raise an error out of range, SAFE_ forms
 * give NULL; DuckDB gives NULL, and reads negative indexes from the end.
 */
const bigquerySubscript = (c: Call): Translation => {
  const index = c.payload.index;
  const ip = payloadOf(index);
  const fn =
    isRecord(index) && isRecord(index.function) && ip && typeof ip.name === 'string'
      ? ip.name.toUpperCase()
      : undefined;
  const arg: unknown = fn !== undefined && Array.isArray(ip?.args) ? (ip.args as unknown[])[0] : index;
  const a = c.payload.this;
  const outOfRange = "error('array index out of bounds')";
  switch (fn ?? 'OFFSET') {
    case 'OFFSET':
      if (fn === undefined && wordValue(index) !== undefined && numberValue(index) === undefined) return keep; // json['key'], struct access
      return duckdb(
        `CASE WHEN {0} IS NULL OR {1} IS NULL THEN NULL WHEN {1} >= 0 AND {1} < len({0}) THEN {0}[{1} + 1] ELSE ${outOfRange} END`,
        a,
        arg,
      );
    case 'ORDINAL':
      return duckdb(
        `CASE WHEN {0} IS NULL OR {1} IS NULL THEN NULL WHEN {1} >= 1 AND {1} <= len({0}) THEN {0}[{1}] ELSE ${outOfRange} END`,
        a,
        arg,
      );
    case 'SAFE_OFFSET':
      return duckdb('CASE WHEN {1} >= 0 THEN {0}[{1} + 1] END', a, arg);
    case 'SAFE_ORDINAL':
      return duckdb('CASE WHEN {1} >= 1 THEN {0}[{1}] END', a, arg);
    default:
      return keep;
  }
};

/** BigQuery `UNNEST(a) AS x WITH OFFSET AS o`: the offset counts from 0 (DuckDB's ordinality from 1). */
const bigqueryUnnest = (c: Call): Translation => {
  const p = c.payload;
  if (p.with_ordinality !== true) return keep;
  if (!c.ctx.inFrom) return refuse('UNNEST … WITH OFFSET outside FROM');
  const value = isRecord(p.alias) && typeof p.alias.name === 'string' ? p.alias.name : 'f0_';
  const offset =
    isRecord(p.offset_alias) && typeof p.offset_alias.name === 'string' ? p.offset_alias.name : 'offset';
  return {
    kind: 'duckdb',
    template: `(SELECT sg_u.v AS ${quoteIdent(value)}, sg_u.o - 1 AS ${quoteIdent(offset)} FROM unnest({0}) WITH ORDINALITY AS sg_u(v, o))`,
    args: [p.this as never],
    alias: `sg_unnest_${value}`,
  };
};

/**
 * Snowflake subscripts count from 0: `arr[0]` is the first element (DuckDB lists count from 1); a negative one
 * is NULL. A string key (`v['a']`) is kept.
 */
const snowflakeSubscript = (c: Call): Translation => {
  if (payloadOf(c.payload.index)?.literal_type === 'string') return keep;
  return duckdb('CASE WHEN {1} >= 0 THEN {0}[{1} + 1] END', c.payload.this, c.payload.index);
};

/** PostgreSQL: a subscript out of range is NULL, a negative one too (DuckDB counts those from the end). */
const postgresSubscript = (c: Call): Translation => {
  const k = numberValue(c.payload.index);
  if (k !== undefined && k >= 1) return keep;
  if (
    k === undefined &&
    wordValue(c.payload.index) !== undefined &&
    payloadOf(c.payload.index)?.literal_type === 'string'
  )
    return keep;
  return duckdb('CASE WHEN {1} >= 1 THEN {0}[{1}] END', c.payload.this, c.payload.index);
};

/**
 * Snowflake FLATTEN(INPUT => x): one row per element of an array or member of an object, with KEY (objects),
 * INDEX (arrays, from 0), VALUE (semi-structured) and THIS; read from DuckDB's json_each.
 */
const flatten = (c: Call): Translation => {
  let input: unknown;
  for (const [i, a] of c.args.entries()) {
    const named = isRecord(a) && isRecord(a.named_argument) ? a.named_argument : undefined;
    const name =
      named && isRecord(named.name) && typeof named.name.name === 'string'
        ? named.name.name.toUpperCase()
        : undefined;
    if (named === undefined && i === 0) input = a;
    else if (name === 'INPUT') input = named?.value;
    else return refuse(`FLATTEN with ${name ?? 'more than an input'} is not supported in local mode`);
  }
  if (input === undefined) return refuse('FLATTEN needs an INPUT');
  const j = 'to_json({0})';
  return duckdb(
    `(SELECT CASE WHEN json_type(${j}) = 'ARRAY' THEN NULL ELSE sg_j.key END AS key, ` +
      `CASE WHEN json_type(${j}) = 'ARRAY' THEN CAST(sg_j.key AS BIGINT) END AS index, ` +
      `sg_j.value AS value, ${j} AS this FROM json_each(${j}) AS sg_j)`,
    input,
  );
};

/** Snowflake VALUES in FROM names its columns COLUMN1, COLUMN2, … (DuckDB: col0, col1, …). */
const snowflakeValues = (c: Call): Translation => {
  const p = c.payload;
  const rows: unknown[] = Array.isArray(p.expressions) ? (p.expressions as unknown[]) : [];
  const first = rows[0];
  const width = isRecord(first) && Array.isArray(first.expressions) ? first.expressions.length : 0;
  if (!c.ctx.inFrom || width === 0 || (Array.isArray(p.column_aliases) && p.column_aliases.length > 0))
    return keep;
  const ident = (name: string) => ({ name, quoted: false, trailing_comments: [] });
  return replaceWith({
    values: {
      ...p,
      alias: isRecord(p.alias) ? p.alias : ident('sg_values'),
      column_aliases: Array.from({ length: width }, (_, i) => ident(`column${i + 1}`)),
    },
  });
};

/** Snowflake `(VALUES …)` as a derived table names its columns COLUMN1, … too. */
const snowflakeValuesSubquery = (c: Call): Translation => {
  const p = c.payload;
  const values = payloadOf(p.this);
  const rows: unknown[] =
    kindOf(p.this) === 'values' && Array.isArray(values?.expressions)
      ? (values.expressions as unknown[])
      : [];
  const first = rows[0];
  const width = isRecord(first) && Array.isArray(first.expressions) ? first.expressions.length : 0;
  if (!c.ctx.inFrom || width === 0 || (Array.isArray(p.column_aliases) && p.column_aliases.length > 0))
    return keep;
  const ident = (name: string) => ({ name, quoted: false, trailing_comments: [] });
  return replaceWith({
    subquery: {
      ...p,
      alias: isRecord(p.alias) ? p.alias : ident('sg_values'),
      column_aliases: Array.from({ length: width }, (_, i) => ident(`column${i + 1}`)),
    },
  });
};

const PG_ARRAYS: LocalRule = {
  kinds: ['array_position', 'array_append', 'array_remove', 'array_slice', 'array_contains_all', 'unnest'],
  names: [
    'ARRAY_LENGTH',
    'ARRAY_CAT',
    'UNNEST',
    'GENERATE_SERIES',
    'ARRAY_POSITION',
    'ARRAY_APPEND',
    'ARRAY_REMOVE',
  ],
  family: 'arrays',
};

const isArrayLiteral = (node: unknown): boolean => kindOf(node) === 'array_func' || kindOf(node) === 'array';

/** PostgreSQL set-returning functions in FROM with a table alias only: the alias names the column too. */
const postgresFromFunction = (c: Call): Translation => {
  const p = c.payload;
  const fp = payloadOf(p.this);
  const fn =
    kindOf(p.this) === 'function' && fp && typeof fp.name === 'string' ? fp.name.toUpperCase() : undefined;
  const cols = Array.isArray(p.column_aliases) ? p.column_aliases : [];
  if (!c.ctx.inFrom || (fn !== 'GENERATE_SERIES' && fn !== 'UNNEST') || cols.length > 0 || !isRecord(p.alias))
    return keep;
  return replaceWith({ alias: { ...p, column_aliases: [p.alias] } });
};

export const ARRAYS: RuleSet = {
  bigquery: [
    {
      kinds: ['array_agg'],
      names: ['ARRAY_AGG'],
      family: 'arrays',
      why: 'the library keeps LIMIT inside the aggregate, which DuckDB cannot parse, and DuckDB orders NULLs last',
      translate: bigqueryArrayAgg,
    },
    {
      kinds: ['subscript'],
      names: ['OFFSET', 'ORDINAL'],
      family: 'arrays',
      why: 'out-of-range OFFSET and ORDINAL are errors',
      translate: bigquerySubscript,
    },
    {
      kinds: ['unnest'],
      names: ['UNNEST'],
      family: 'arrays',
      why: 'WITH OFFSET became 1-based WITH ORDINALITY, its alias lost',
      translate: bigqueryUnnest,
    },
    {
      kinds: ['array_length', 'array_reverse'],
      names: [
        'ARRAY_LENGTH',
        'ARRAY_REVERSE',
        'ARRAY_CONCAT',
        'ARRAY_TO_STRING',
        'GENERATE_ARRAY',
        'GENERATE_DATE_ARRAY',
        'ARRAY',
        'SAFE_OFFSET',
        'SAFE_ORDINAL',
      ],
      family: 'arrays',
    },
  ],
  snowflake: [
    {
      kinds: ['array_agg', 'array_size', 'array_contains', 'array_position', 'array_append', 'array_compact'],
      names: [
        'ARRAY_AGG',
        'ARRAY_SIZE',
        'ARRAY_CONTAINS',
        'ARRAY_POSITION',
        'ARRAY_APPEND',
        'ARRAY_COMPACT',
        'ARRAY_SLICE',
        'ARRAY_TO_STRING',
        'ARRAY_CAT',
        'GET',
      ],
      family: 'arrays',
    },
    {
      names: ['ARRAY_CONSTRUCT'],
      family: 'arrays',
      why: 'DuckDB has no ARRAY_CONSTRUCT',
      translate: (c) => duckdb(`[${c.args.map((_, i) => `{${i}}`).join(', ')}]`, ...c.args),
    },
    {
      kinds: ['subscript'],
      names: ['[]'],
      family: 'arrays',
      why: 'subscripts count from 0',
      translate: snowflakeSubscript,
    },
    {
      names: ['FLATTEN'],
      family: 'arrays',
      why: "the library's unnest loses INDEX, KEY and VALUE",
      translate: flatten,
    },
    {
      names: ['TABLE'],
      family: 'arrays',
      why: 'TABLE(f(…)) is f(…) in DuckDB',
      translate: (c) =>
        c.args.length === 1 && c.ctx.inFrom
          ? replaceWith(c.args[0] as never)
          : refuse('TABLE(…) outside FROM'),
    },
    {
      kinds: ['values'],
      names: ['VALUES'],
      family: 'arrays',
      why: 'the columns are named COLUMN1, COLUMN2, …',
      translate: snowflakeValues,
    },
    {
      kinds: ['subquery'],
      names: ['(VALUES …)'],
      family: 'arrays',
      why: 'the columns of a VALUES derived table are named COLUMN1, COLUMN2, …',
      translate: snowflakeValuesSubquery,
    },
  ],
  postgres: [
    PG_ARRAYS,
    {
      kinds: ['array_agg'],
      names: ['ARRAY_AGG'],
      family: 'arrays',
      why: 'the library drops the NULLS FIRST of a descending ORDER BY inside array_agg (PostgreSQL default)',
      translate: postgresArrayAgg,
    },
    {
      kinds: ['cardinality'],
      names: ['CARDINALITY'],
      family: 'arrays',
      why: 'cardinality counts every element of a nested array; the library counts the outer one',
      translate: (c) => {
        const x = c.payload.this;
        const nested =
          isArrayLiteral(x) &&
          (payloadOf(x)?.expressions as unknown[] | undefined)?.some(isArrayLiteral) === true;
        return nested ? duckdb('len(flatten({0}))', x) : keep;
      },
    },
    {
      names: ['ARRAY_TO_STRING'],
      family: 'arrays',
      why: "DuckDB's array_to_string takes no NULL replacement",
      translate: (c) =>
        c.args.length === 3
          ? duckdb(
              'array_to_string(list_transform({0}, sg_x -> coalesce(CAST(sg_x AS VARCHAR), {2})), {1})',
              ...c.args,
            )
          : keep,
    },
    {
      names: ['ARRAY_UPPER'],
      family: 'arrays',
      why: 'DuckDB has no array_upper',
      translate: (c) =>
        numberValue(c.args[1]) === 1
          ? duckdb('len({0})', c.args[0])
          : refuse('array_upper of another dimension than 1'),
    },
    {
      names: ['ARRAY'],
      family: 'arrays',
      why: 'the library prints ARRAY(SELECT …) as a list literal, which DuckDB cannot parse',
      translate: (c) => {
        const q = c.args[0];
        if (c.args.length !== 1) return refuse('ARRAY takes one subquery');
        // A bare SELECT as an argument prints without parentheses; as a subquery it prints with them.
        const sub = subqueryNode(q);
        return duckdb('ARRAY{0}', kindOf(q) === 'subquery' ? q : sub);
      },
    },
    {
      kinds: ['alias'],
      family: 'arrays',
      why: 'generate_series(…) AS x names the column x; DuckDB names the table x and the column generate_series',
      translate: postgresFromFunction,
    },
    {
      kinds: ['subscript'],
      names: ['[]'],
      family: 'arrays',
      why: 'a negative subscript is NULL, not counted from the end',
      translate: postgresSubscript,
    },
    { kinds: ['values'], names: ['VALUES'], family: 'arrays' },
  ],
};
