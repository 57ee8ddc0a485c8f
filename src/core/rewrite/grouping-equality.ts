import type { SqlDialect } from '../sql/dialect.ts';
import { isRecord, kindOf } from '../sql/tree.ts';
import type { SqlType } from './sql-types.ts';
import { bodyOf, someNode } from './tree-ops.ts';

/**
 * GROUP BY and DISTINCT put together values that compare equal, which is coarser than identity for some
 * types: MySQL's default collations make 'a' = 'A' = 'a ' (case-insensitive, PAD SPACE), PostgreSQL's
 * unconstrained numeric makes 1.0 = 1.00, floats make -0.0 = 0.0. A group then holds rows with different
 * values, and a filter finer than that equality (`BINARY s = 'f'`, `CAST(n AS TEXT) = '1.0'`) keeps part of
 * a group when run on rows, where run after grouping it sees one of the values and keeps or drops the group
 * whole. This module is the allowlist of filters whose truth cannot differ between values a grouping treats as
 * equal.
 */

/** Whether equal values of the type are identical (every deterministic function agrees on them). */
export const identityEquality = (type: SqlType, dialect: SqlDialect): boolean => {
  switch (type.family) {
    case 'int':
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'bool':
    case 'bytes':
      return true;
    case 'decimal':
      // A declared scale stores every value at that scale; PostgreSQL's bare NUMERIC keeps 1.0 and 1.00 apart.
      return /\(\d+(,\d+)?\)/.test(type.name);
    case 'string':
    case 'char':
      // PostgreSQL's default collation is deterministic (equal only when identical); a named collation may
      // not be. MySQL collations ignore case and trailing spaces unless binary NO PAD; BigQuery and Snowflake
      // may have a dataset or account default we do not see.
      if (dialect === 'postgres') return type.collation === undefined;
      if (dialect === 'mysql') return /(^binary$|nopad_bin$|_0900_bin$)/.test(type.collation ?? '');
      return false;
    case 'float':
    case 'null':
    case 'other':
      return false;
  }
};

const NUMBER_FAMILIES = new Set(['int', 'decimal', 'float']);
const TEXT_FAMILIES = new Set(['string', 'char']);

/** A constant a comparison with a key of `type` evaluates in the key's own type (and collation). */
const compatibleConstant = (c: unknown, type: SqlType): boolean => {
  const inner = bodyOf(c, 'paren')?.this ?? c;
  if (kindOf(inner) === 'null') return true;
  const neg = bodyOf(inner, 'neg');
  const lit = bodyOf(neg ? neg.this : inner, 'literal');
  if (!lit) return false;
  if (lit.literal_type === 'number') return NUMBER_FAMILIES.has(type.family);
  return !neg && lit.literal_type === 'string' && TEXT_FAMILIES.has(type.family);
};

const COMPARISONS = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'null_safe_eq', 'null_safe_neq']);

/** What the check needs to know about the grouping: which expressions are its keys, and their types. */
export type Grouping = {
  readonly isKey: (e: unknown) => boolean;
  readonly typeOf: (key: unknown) => SqlType | undefined;
  readonly dialect: SqlDialect;
};

/** The keys `e` reads, or undefined when one has an unknown type. */
const keysIn = (e: unknown, g: Grouping): SqlType[] | undefined => {
  const types: SqlType[] = [];
  let unknown = false;
  someNode(
    e,
    (n) => {
      if (!g.isKey(n)) return false;
      const t = g.typeOf(n);
      if (t === undefined) unknown = true;
      else types.push(t);
      return false;
    },
    (n) => !g.isKey(n),
  );
  return unknown ? undefined : types;
};

/** `e` is a key, maybe in parentheses: its type. */
const keyType = (e: unknown, g: Grouping): SqlType | undefined => {
  const inner = bodyOf(e, 'paren')?.this ?? e;
  return g.isKey(inner) || g.isKey(e) ? g.typeOf(g.isKey(e) ? e : inner) : undefined;
};

/**
 * Whether `pred` has one truth value for all rows of a group, the grouping's keys being `g.isKey`. Allowed:
 * AND / OR / NOT of (a) any deterministic expression that reads only keys of identity-equality types, or (b) a
 * comparison (=, <>, <, <=, >, >=, IS [NOT] DISTINCT FROM, BETWEEN, IN list, IS [NOT] NULL) of a bare key
 * with constants of the key's type family, which the key's own equality and collation decide. Anything else
 * — functions, casts, COLLATE, BINARY, LIKE, arithmetic on a key whose equality is coarser than identity, or
 * a key of unknown type — is refused.
 */
export const respectsGrouping = (pred: unknown, g: Grouping): boolean => {
  const kind = kindOf(pred);
  const body = kind === undefined ? undefined : (pred as Record<string, unknown>)[kind];
  const b = isRecord(body) ? body : undefined;
  if (!b || kind === undefined) return false;
  if (kind === 'and' || kind === 'or') return respectsGrouping(b.left, g) && respectsGrouping(b.right, g);
  if (kind === 'not' || kind === 'paren') return respectsGrouping(b.this, g);
  const keys = keysIn(pred, g);
  if (keys === undefined) return false;
  if (keys.every((k) => identityEquality(k, g.dialect))) return true;
  if (COMPARISONS.has(kind)) {
    const lt = keyType(b.left, g);
    const rt = keyType(b.right, g);
    if (lt) return compatibleConstant(b.right, lt);
    return rt !== undefined && compatibleConstant(b.left, rt);
  }
  const t = keyType(b.this, g);
  if (!t) return false;
  if (kind === 'is_null') return true;
  if (kind === 'between') return compatibleConstant(b.low, t) && compatibleConstant(b.high, t);
  if (kind === 'in')
    return (
      (b.query === null || b.query === undefined) &&
      Array.isArray(b.expressions) &&
      b.expressions.every((x: unknown) => compatibleConstant(x, t))
    );
  return false;
};
