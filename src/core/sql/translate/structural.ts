/**
 * Node kinds that are query structure or operators meaning the same in BigQuery, Snowflake, PostgreSQL and
 * DuckDB, so the SQL library's translation of them needs no rule. A dialect's rule for one of these kinds
 * (division, casts, subscripts, …) takes precedence. Every other node kind must have a rule, or local mode
 * refuses it by name: an unknown construct is never passed on to DuckDB on trust.
 */
const STRUCTURAL = new Set([
  // statements and clauses
  'select',
  'union',
  'intersect',
  'except',
  'subquery',
  'from',
  'join',
  'where',
  'group_by',
  'having',
  'qualify',
  'order_by',
  'ordered',
  'limit',
  'offset',
  'fetch',
  'with',
  'cte',
  'alias',
  'table_alias',
  'lateral',
  'window_spec',
  'over',
  'window_function',
  'within_group',
  'filter',
  'rollup',
  'cube',
  'grouping_sets',
  // names and plain values
  'column',
  'identifier',
  'table',
  'star',
  'boolean',
  'null',
  'literal',
  'var',
  'data_type',
  'named_argument',
  'interval',
  'tuple',
  'array_func',
  'array',
  'dot',
  // operators with one meaning everywhere
  'paren',
  'and',
  'or',
  'not',
  'neg',
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'is_null',
  'is_true',
  'is_false',
  'null_safe_eq',
  'null_safe_neq',
  'in',
  'between',
  'exists',
  'any',
  'all',
  'case',
  'add',
  'sub',
  'mul',
  'concat',
  'like',
  'i_like',
]);

/**
 * Whether a one-key object is structure rather than a function: a structural kind above, or a field of the
 * library's tree that merely looks like a node (enum variants such as `Preceding` are capitalised).
 */
export const isStructural = (kind: string): boolean =>
  STRUCTURAL.has(kind) || /^[A-Z]/.test(kind) || kind === 'this';
