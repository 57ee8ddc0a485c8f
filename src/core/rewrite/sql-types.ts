import type { Catalog } from '../catalog.ts';
import { findTable } from '../catalog.ts';
import type { SqlDialect } from '../sql/dialect.ts';
import { isRecord } from '../sql/tree.ts';
import { cteReferences } from './cte-scope.ts';
import { columnType } from './sql-type-names.ts';
import { selectItems, sourcesOf } from './selects.ts';
import type { SelectBody, Source } from './selects.ts';
import { bodyOf, columnRef, someNode } from './tree-ops.ts';

/**
 * Types of expressions and of the output columns of queries, inferred from the catalog. Only what is certain
 * gets a type: a column whose source is known, a literal, a CAST to a non-string type, and the output columns
 * of SELECTs and set operations built from those. Everything else is `undefined` (unknown), and a rule that
 * needs a type does not fire on it.
 */
export type TypeFamily =
  | 'int'
  | 'decimal'
  | 'float'
  | 'string'
  | 'char'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'bool'
  | 'bytes'
  | 'null'
  | 'other';

export type SqlType = {
  readonly family: TypeFamily;
  /** Canonical name with parameters (`integer`, `varchar(8)`, `numeric(10,2)`); two types are equal by it. */
  readonly name: string;
  /** Collation when the catalog names one (MySQL always; elsewhere only a non-default one). */
  readonly collation?: string;
};

/**
 * Whether two types are the same type, parameters and collation included. On MySQL every string has a
 * collation, so two strings are equal only when the catalog names both collations and they agree.
 */
export const sameType = (a: SqlType, b: SqlType, dialect: SqlDialect): boolean => {
  if (a.name !== b.name || a.family !== b.family) return false;
  const text = a.family === 'string' || a.family === 'char';
  if (text && dialect === 'mysql' && (a.collation === undefined || b.collation === undefined)) return false;
  return (a.collation ?? '') === (b.collation ?? '');
};

const t = (family: TypeFamily, name: string): SqlType => ({ family, name });
export const NULL_TYPE = t('null', 'null');

/** The type of a literal in a dialect, where it is fixed by the literal alone. */
const literalType = (v: unknown, dialect: SqlDialect): SqlType | undefined => {
  if (bodyOf(v, 'null') !== undefined || (isRecord(v) && 'null' in v && Object.keys(v).length === 1))
    return NULL_TYPE;
  if (bodyOf(v, 'boolean')) return t('bool', 'boolean');
  const l = bodyOf(v, 'literal');
  if (!l || typeof l.value !== 'string') return undefined;
  if (l.literal_type === 'date') return t('date', 'date');
  if (l.literal_type !== 'number' || !/^\d+$/.test(l.value)) return undefined;
  // An integer literal: int4 in PostgreSQL (and DuckDB), INT64 in BigQuery; MySQL and Snowflake type it by
  // its digits (BIGINT(1), NUMBER(1,0)), which no column shares.
  const n = BigInt(l.value);
  if (dialect === 'bigquery') return t('int', 'bigint');
  if (dialect !== 'postgres') return undefined;
  if (n < 2n ** 31n) return t('int', 'integer');
  return n < 2n ** 63n ? t('int', 'bigint') : undefined;
};

const CAST_TARGETS: Record<string, SqlType> = {
  int: t('int', 'integer'),
  integer: t('int', 'integer'),
  bigint: t('int', 'bigint'),
  smallint: t('int', 'smallint'),
  double: t('float', 'double'),
  'double precision': t('float', 'double'),
  date: t('date', 'date'),
  timestamp: t('timestamp', 'timestamp'),
  boolean: t('bool', 'boolean'),
};

/** The environment of type inference: the catalog, the dialect, and what each CTE reference reads. */
export type TypeEnv = {
  readonly catalog: Catalog | undefined;
  readonly dialect: SqlDialect;
  /** Table-reference node → the body of the CTE it names in its scope (`null`: recursive or column list). */
  readonly ctes: ReadonlyMap<unknown, unknown>;
};

/** A type environment for a whole statement. */
export const typeEnv = (tree: unknown, catalog: Catalog | undefined, dialect: SqlDialect): TypeEnv => ({
  catalog,
  dialect,
  ctes: cteReferences(tree),
});

const hasColumnAliases = (src: Source): boolean => {
  const body = bodyOf(src.node, 'table') ?? bodyOf(src.node, 'subquery');
  return Array.isArray(body?.column_aliases) && body.column_aliases.length > 0;
};

/** Output columns of a source: name → type (undefined type: unknown), or undefined when names are unknown. */
export const sourceColumns = (
  src: Source,
  env: TypeEnv,
  depth = 0,
): Map<string, SqlType | undefined> | undefined => {
  if (hasColumnAliases(src) || depth > 16) return undefined;
  const tableNode = bodyOf(src.node, 'table');
  if (src.table !== undefined && tableNode) {
    if (env.ctes.has(src.node)) {
      const body = env.ctes.get(src.node);
      return body === null ? undefined : queryColumns(body, env, depth + 1);
    }
    const info = findTable(env.catalog, src.table);
    if (!info) return undefined;
    return new Map(info.columns.map((c) => [c.name.toLowerCase(), columnType(c)]));
  }
  return src.query === undefined ? undefined : queryColumns(src.query, env, depth + 1);
};

/** Output columns of a query by name (a set operation names them after its first branch). */
const queryColumns = (
  query: unknown,
  env: TypeEnv,
  depth: number,
): Map<string, SqlType | undefined> | undefined => {
  const names = outputNames(query);
  const types = outputTypes(query, env, depth);
  if (!names || !types || names.some((n) => n === undefined)) return undefined;
  const out = new Map<string, SqlType | undefined>();
  names.forEach((n, i) => {
    // A name output twice is ambiguous: unknown type.
    out.set(n as string, out.has(n as string) ? undefined : types[i]);
  });
  return out;
};

const setOp = (q: unknown): Record<string, unknown> | undefined =>
  bodyOf(q, 'union') ?? bodyOf(q, 'intersect') ?? bodyOf(q, 'except');

const outputNames = (query: unknown): Array<string | undefined> | undefined => {
  const s = bodyOf(query, 'select');
  if (s) return selectItems(s).map((i) => i.name);
  const op = setOp(query);
  if (op) return outputNames(op.left);
  const sub = bodyOf(query, 'subquery') ?? bodyOf(query, 'paren');
  return sub ? outputNames(sub.this) : undefined;
};

/**
 * The type of each output column of a query, by position; undefined for the whole list when its width is
 * unknown (`*`), and per column when that column's type is unknown.
 */
export const outputTypes = (
  query: unknown,
  env: TypeEnv,
  depth = 0,
): Array<SqlType | undefined> | undefined => {
  if (depth > 16) return undefined;
  const s = bodyOf(query, 'select');
  if (s) {
    if (someNode(s.expressions, (_n, k) => k === 'star')) return undefined;
    return selectItems(s).map((i) => exprType(i.expr, s, env, depth + 1));
  }
  const op = setOp(query);
  if (op) {
    const l = outputTypes(op.left, env, depth + 1);
    const r = outputTypes(op.right, env, depth + 1);
    if (!l || !r || l.length !== r.length) return undefined;
    return l.map((a, i) => setOpType([a, r[i]], env.dialect));
  }
  const sub = bodyOf(query, 'subquery') ?? bodyOf(query, 'paren');
  return sub ? outputTypes(sub.this, env, depth + 1) : undefined;
};

const INT_RANK = ['tinyint', 'smallint', 'integer', 'bigint'];

/**
 * The result type of a set operation's column from its branches' types, by the dialect's coercion rules:
 * equal types stay; NULL takes the other side's type; PostgreSQL (and DuckDB) widen integers, DATE with
 * TIMESTAMP gives TIMESTAMP. Anything else (strings of different lengths or collations, MySQL's
 * aggregation rules, Snowflake/BigQuery supertypes) is left unknown.
 */
export const setOpType = (types: Array<SqlType | undefined>, dialect: SqlDialect): SqlType | undefined => {
  let acc: SqlType | undefined = NULL_TYPE;
  for (const x of types) {
    if (x === undefined || acc === undefined) return undefined;
    if (x.family === 'null') continue;
    if (acc.family === 'null' || sameType(acc, x, dialect)) {
      acc = x;
      continue;
    }
    if (dialect !== 'postgres') return undefined;
    const ra: number = INT_RANK.indexOf(acc.name);
    const rx: number = INT_RANK.indexOf(x.name);
    if (ra >= 0 && rx >= 0) acc = ra >= rx ? acc : x;
    else if (acc.family === 'date' && x.name === 'timestamp') acc = x;
    else if (acc.name === 'timestamp' && x.family === 'date') continue;
    else return undefined;
  }
  return acc;
};

/** The type of an expression as SQL would resolve it in the scope of SELECT `s`, or undefined. */
export const exprType = (e: unknown, s: SelectBody, env: TypeEnv, depth = 0): SqlType | undefined => {
  const paren = bodyOf(e, 'paren');
  if (paren) return exprType(paren.this, s, env, depth);
  const lit = literalType(e, env.dialect);
  if (lit) return lit;
  const cast = bodyOf(e, 'cast');
  if (cast && isRecord(cast.to) && Object.keys(cast.to).length === 1 && !cast.format) {
    const target = CAST_TARGETS[String(cast.to.data_type).toLowerCase()];
    return env.dialect === 'mysql' ? undefined : target;
  }
  const ref = columnRef(e);
  if (!ref || depth > 16) return undefined;
  const sources = sourcesOf(s);
  if (!sources) return undefined;
  if (ref.table !== undefined) {
    const src = sources.filter((x) => x.alias === ref.table);
    return src.length === 1 && src[0] ? sourceColumns(src[0], env, depth)?.get(ref.name) : undefined;
  }
  let found: SqlType | undefined;
  let owners = 0;
  for (const src of sources) {
    const cols = sourceColumns(src, env, depth);
    if (!cols) return undefined; // a source whose columns we cannot list might own the name
    if (cols.has(ref.name)) {
      owners++;
      found = cols.get(ref.name);
    }
  }
  return owners === 1 ? found : undefined;
};

/** Which source of `s` an unqualified or qualified column belongs to, when the catalog can tell. */
export const ownerOf = (
  ref: { name: string; table: string | undefined },
  s: SelectBody,
  env: TypeEnv,
): Source | undefined => {
  const sources = sourcesOf(s);
  if (!sources) return undefined;
  if (ref.table !== undefined) {
    const src = sources.filter((x) => x.alias === ref.table);
    return src.length === 1 ? src[0] : undefined;
  }
  let owner: Source | undefined;
  for (const src of sources) {
    const cols = sourceColumns(src, env);
    if (!cols) return undefined;
    if (cols.has(ref.name)) {
      if (owner) return undefined;
      owner = src;
    }
  }
  return owner;
};
