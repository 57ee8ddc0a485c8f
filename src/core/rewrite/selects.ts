import { isRecord } from '../sql/tree.ts';
import type { SqlNode } from '../sql/tree.ts';
import { bodyOf, identName, mapTree, someNode } from './tree-ops.ts';

/** The payload of a `{select: …}` node: the fields rules read and replace. */
export type SelectBody = Record<string, unknown>;

/** Maps every SELECT in the tree, innermost first; `fn` returns its argument when nothing applies. */
export const mapSelects = <T>(tree: T, fn: (select: SelectBody) => SelectBody): T =>
  mapTree(tree, (node, kind) => {
    if (kind !== 'select') return node;
    const body = node.select as SelectBody;
    const next = fn(body);
    return next === body ? node : { select: next };
  });

/** The predicate of a `{this: pred}` clause wrapper (WHERE, HAVING, QUALIFY), or undefined. */
export const clausePredicate = (clause: unknown): unknown =>
  isRecord(clause) && clause.this !== null ? clause.this : undefined;

/**
 * Maps the predicates of every SELECT (WHERE, HAVING, QUALIFY and JOIN … ON) — the boolean positions where
 * a rule may replace an expression by an equivalent one without touching output columns.
 */
export const mapPredicates = <T>(tree: T, fn: (pred: unknown) => unknown): T =>
  mapSelects(tree, (s) => {
    let out: SelectBody | undefined;
    for (const field of ['where_clause', 'having', 'qualify']) {
      const clause = s[field];
      const pred = clausePredicate(clause);
      if (pred === undefined) continue;
      const next = fn(pred);
      if (next !== pred) {
        out ??= { ...s };
        out[field] = { ...(clause as object), this: next };
      }
    }
    if (Array.isArray(s.joins)) {
      const joins = s.joins.map((j: unknown) => {
        if (!isRecord(j) || j.on === null || j.on === undefined) return j;
        const next = fn(j.on);
        return next === j.on ? j : { ...j, on: next };
      });
      if (joins.some((j, i) => j !== (s.joins as unknown[])[i])) {
        out ??= { ...s };
        out.joins = joins;
      }
    }
    return out ?? s;
  });

/** A FROM item or joined item of a SELECT, with the name columns qualify it by. */
export type Source = {
  /** Lower-cased alias, or the table name when unaliased. */
  readonly alias: string;
  /** Lower-cased base table name, when the item is a table. */
  readonly table?: string;
  /** The derived table's query, when the item is a subquery. */
  readonly query?: unknown;
  readonly node: unknown;
  /** -1 for FROM items, else the index into `joins`. */
  readonly joinIndex: number;
};

export const sourceOf = (item: unknown, joinIndex: number): Source | undefined => {
  const table = bodyOf(item, 'table');
  if (table) {
    const name = identName(table.name);
    if (name === undefined) return undefined;
    return { alias: identName(table.alias) ?? name, table: name, node: item, joinIndex };
  }
  const sub = bodyOf(item, 'subquery');
  if (sub) {
    const alias = identName(sub.alias);
    if (alias === undefined) return undefined;
    return { alias, query: sub.this, node: item, joinIndex };
  }
  return undefined;
};

/** All sources of a SELECT, or undefined when one of them is of a kind we do not model (lateral, unnest…). */
export const sourcesOf = (s: SelectBody): Source[] | undefined => {
  const out: Source[] = [];
  const from = isRecord(s.from) && Array.isArray(s.from.expressions) ? s.from.expressions : [];
  for (const item of from) {
    const src = sourceOf(item, -1);
    if (!src) return undefined;
    out.push(src);
  }
  const joins = Array.isArray(s.joins) ? s.joins : [];
  for (let i = 0; i < joins.length; i++) {
    const j: unknown = joins[i];
    const src = isRecord(j) ? sourceOf(j.this, i) : undefined;
    if (!src) return undefined;
    out.push(src);
  }
  if (Array.isArray(s.lateral_views) && s.lateral_views.length > 0) return undefined;
  return out;
};

const AGGREGATE_KINDS = new Set([
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'array_agg',
  'string_agg',
  'group_concat',
  'listagg',
  'any_value',
  'count_if',
  'approx_distinct',
  'approx_count_distinct',
  'bool_and',
  'bool_or',
  'logical_and',
  'logical_or',
  'median',
  'aggregate_function',
  'agg_func',
]);

const NON_DETERMINISTIC = new Set([
  'random',
  'rand',
  'uuid',
  'gen_random_uuid',
  'generate_uuid',
  'uuid_string',
  'newid',
  'now',
  'current_timestamp',
  'current_date',
  'current_time',
  'localtimestamp',
  'localtime',
  'sysdate',
  'getdate',
  'systimestamp',
  'clock_timestamp',
  'statement_timestamp',
  'timeofday',
  'random_bytes',
  'seq4',
  'seq8',
  'row_number',
]);

const fnName = (node: SqlNode, kind: string): string => {
  const body = node[kind];
  return kind === 'function' && isRecord(body) && typeof body.name === 'string'
    ? body.name.toLowerCase()
    : kind;
};

/** An aggregate call anywhere in `v` (not looking into subqueries, which aggregate on their own). */
export const hasAggregate = (v: unknown): boolean =>
  someNode(
    v,
    (n, k) => AGGREGATE_KINDS.has(fnName(n, k)) || k.endsWith('_agg'),
    (_n, k) => k !== 'subquery' && k !== 'select' && k !== 'exists',
  );

/** An aggregate call outside window functions (`SUM(v) OVER (…)` is computed per row, not per group). */
export const hasGroupAggregate = (v: unknown): boolean =>
  someNode(
    v,
    (n, k) => AGGREGATE_KINDS.has(fnName(n, k)) || k.endsWith('_agg'),
    (_n, k) => k !== 'subquery' && k !== 'select' && k !== 'exists' && k !== 'window_function',
  );

/** Anything whose value is not fixed by its row: volatile functions, windows, subqueries, variables. */
export const isVolatileOrOpaque = (v: unknown): boolean =>
  someNode(v, (n, k) => {
    const name = fnName(n, k);
    return (
      NON_DETERMINISTIC.has(name) ||
      k === 'window_function' ||
      k === 'subquery' ||
      k === 'select' ||
      k === 'exists' ||
      k === 'parameter' ||
      k === 'placeholder' ||
      k === 'session_parameter' ||
      k === 'user_variable'
    );
  });

/** Whether a SELECT computes a window function or filters after one. */
export const hasWindow = (s: SelectBody): boolean =>
  someNode(
    s.expressions,
    (_n, k) => k === 'window_function',
    (_n, k) => k !== 'subquery',
  ) ||
  clausePredicate(s.qualify) !== undefined ||
  (s.windows !== null && s.windows !== undefined);

/** LIMIT, OFFSET, FETCH or TOP: a row budget that filters must not cross. */
export const hasRowLimit = (s: SelectBody): boolean =>
  [s.limit, s.offset, s.fetch, s.top].some((x) => x !== null && x !== undefined);

const GROUPING_FUNCTIONS = new Set(['rollup', 'cube', 'grouping sets', 'grouping_sets']);

/**
 * The GROUP BY keys when grouping is plain (each key one expression), or undefined when there is no GROUP BY
 * or it builds super-aggregate rows (ROLLUP, CUBE, GROUPING SETS) whose NULL keys change what filters mean.
 */
export const plainGroupKeys = (s: SelectBody): unknown[] | undefined => {
  const g = s.group_by;
  if (!isRecord(g) || !Array.isArray(g.expressions) || g.expressions.length === 0) return undefined;
  if (g.all === true || (g.totals !== undefined && g.totals !== null && g.totals !== false)) return undefined;
  const plain = g.expressions.every(
    (e: unknown) =>
      !someNode(e, (n, k) => {
        const f = bodyOf(n, 'function');
        return (
          k === 'rollup' ||
          k === 'cube' ||
          k === 'grouping_sets' ||
          k === 'tuple' ||
          (f !== undefined && typeof f.name === 'string' && GROUPING_FUNCTIONS.has(f.name.toLowerCase()))
        );
      }),
  );
  return plain ? g.expressions : undefined;
};

/** Select list items as [output name (lower-cased) or undefined, expression]. */
export const selectItems = (
  s: SelectBody,
): Array<{ name: string | undefined; expr: unknown; item: unknown }> =>
  (Array.isArray(s.expressions) ? s.expressions : []).map((item: unknown) => {
    const alias = bodyOf(item, 'alias');
    if (alias) return { name: identName(alias.alias), expr: alias.this, item };
    const col = bodyOf(item, 'column');
    return { name: col ? identName(col.name) : undefined, expr: item, item };
  });

/** Whether the select list holds `*` or `t.*` (all columns of a source are then used). */
export const hasStar = (v: unknown): boolean =>
  someNode(v, (n, k) => k === 'star' || (k === 'column' && identName(bodyOf(n, 'column')?.name) === '*'));

/** An absent clause as the tree writes it: null, undefined, false or an empty list. */
export const isEmptyClause = (v: unknown): boolean =>
  v === null || v === undefined || v === false || (Array.isArray(v) && v.length === 0);

/**
 * Every clause of a SELECT that shapes its rows beyond FROM and WHERE (grouping, windows, ordering, row limits,
 * DISTINCT, sampling, a WITH, hierarchy, INTO, locks, hints and Hive's distribution clauses).
 */
const SHAPING_CLAUSES = [
  'group_by',
  'having',
  'qualify',
  'windows',
  'order_by',
  'limit',
  'offset',
  'fetch',
  'top',
  'distinct_on',
  'sample',
  'with',
  'connect',
  'into',
  'distinct',
  'locks',
  'lateral_views',
  'hint',
  'distribute_by',
  'cluster_by',
  'sort_by',
] as const;

/** Whether a SELECT has none of the clauses that shape its rows beyond FROM and WHERE. */
export const onlyFromAndWhere = (s: SelectBody): boolean => SHAPING_CLAUSES.every((f) => isEmptyClause(s[f]));
