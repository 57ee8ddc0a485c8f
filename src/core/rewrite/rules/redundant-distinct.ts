import { findTable } from '../../catalog.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import {
  hasGroupAggregate,
  hasRowLimit,
  hasWindow,
  mapSelects,
  plainGroupKeys,
  selectItems,
  sourcesOf,
} from '../selects.ts';
import type { SelectBody } from '../selects.ts';
import { typeEnv } from '../sql-types.ts';
import type { TypeEnv } from '../sql-types.ts';
import { bodyOf, columnRef, mapTree, sameNode, someNode } from '../tree-ops.ts';

/** Every group key is output (as the same expression; a GROUP BY name may mean an input column, not an alias): rows of a grouped query are then already distinct. */
const groupKeysAllOutput = (s: SelectBody): boolean => {
  const keys = plainGroupKeys(s);
  if (!keys || hasWindow(s)) return false;
  const items = selectItems(s);
  return keys.every((k) => {
    const ordinal = bodyOf(k, 'literal');
    if (ordinal && ordinal.literal_type === 'number') return true;
    return items.some((i) => sameNode(i.expr, k));
  });
};

const isPlainDistinct = (s: SelectBody): boolean =>
  s.distinct === true && (s.distinct_on === null || s.distinct_on === undefined);

/**
 * A plain DISTINCT: in a grouped SELECT, in the subquery of a membership test, or in a SELECT that reads one
 * derived table or CTE (`env` then resolves CTE references).
 */
type Site = {
  readonly s: SelectBody;
  readonly underSetTest: boolean;
  readonly overQuery?: { readonly env: TypeEnv; readonly catalog: RuleContext['catalog'] };
};

/** Functions that may return several rows per input row (a select list holding one is not one row per row). */
const SET_RETURNING =
  /^(generate_series|generate_subscripts|unnest|explode|posexplode|inline|flatten|json_|jsonb_|regexp_matches|regexp_split_to_table|string_to_table)/;

const mayReturnSet = (v: unknown): boolean =>
  someNode(v, (n, k) => {
    const f = bodyOf(n, 'function');
    return SET_RETURNING.test(f && typeof f.name === 'string' ? f.name.toLowerCase() : k);
  });

/**
 * Sets of output column names on which every two rows of `query` differ (under the equality GROUP BY and
 * DISTINCT use): its plain GROUP BY keys when all are output as bare items, all its items under a plain
 * DISTINCT, the primary key of its only table (no join, grouping or aggregate), or no column at all when it
 * aggregates without GROUP BY (one row). A select list that may return a set gives none.
 */
const uniqueOutputs = (query: unknown, catalog: RuleContext['catalog'], env: TypeEnv): string[][] => {
  const q = bodyOf(query, 'select');
  if (!q || mayReturnSet(q.expressions) || (q.with !== null && q.with !== undefined)) return [];
  const items = selectItems(q);
  const out: string[][] = [];
  const nameOf = (e: unknown): string | undefined => {
    const ordinal = bodyOf(e, 'literal');
    if (ordinal?.literal_type === 'number') {
      const item = items[Number(ordinal.value) - 1];
      return item && columnRef(item.expr) ? item.name : undefined;
    }
    return columnRef(e) ? items.find((i) => sameNode(i.expr, e))?.name : undefined;
  };
  if (q.distinct === true && (q.distinct_on === null || q.distinct_on === undefined)) {
    const names = items.map((i) => i.name);
    if (names.every((n): n is string => n !== undefined)) out.push(names);
  }
  const grouped = q.group_by !== null && q.group_by !== undefined;
  const keys = plainGroupKeys(q);
  if (keys) {
    const names = keys.map(nameOf);
    if (names.every((n): n is string => n !== undefined)) out.push(names);
  }
  if (!grouped && hasGroupAggregate(q.expressions) && !hasWindow(q)) out.push([]);
  const sources = sourcesOf(q);
  const only = sources?.length === 1 ? sources[0] : undefined;
  if (
    !grouped &&
    !hasGroupAggregate(q.expressions) &&
    only?.table !== undefined &&
    !env.ctes.has(only.node)
  ) {
    const table = bodyOf(only.node, 'table');
    const info = table && (table.schema ?? null) === null ? findTable(catalog, only.table) : undefined;
    const pk = (info?.primaryKey ?? []).map((c) => c.toLowerCase());
    const names = pk.map(
      (c) =>
        items.find((i) => {
          const ref = columnRef(i.expr);
          return ref?.name === c && (ref.table === undefined || ref.table === only.alias);
        })?.name,
    );
    if (pk.length > 0 && names.every((n): n is string => n !== undefined)) out.push(names);
  }
  return out;
};

/** The query a SELECT's only source reads (a derived table without column list, or a CTE), or undefined. */
const onlySourceQuery = (s: SelectBody, env: TypeEnv): { alias: string; query: unknown } | undefined => {
  const sources = sourcesOf(s);
  const src = sources?.length === 1 ? sources[0] : undefined;
  if (!src || (Array.isArray(s.joins) && s.joins.length > 0)) return undefined;
  const sub = bodyOf(src.node, 'subquery');
  if (sub) {
    const cols = sub.column_aliases;
    return Array.isArray(cols) && cols.length > 0 ? undefined : { alias: src.alias, query: src.query };
  }
  const body = env.ctes.get(src.node);
  return body === null || body === undefined ? undefined : { alias: src.alias, query: body };
};

/** Whether the outer DISTINCT SELECT outputs, as bare columns of its only source, a unique key of it. */
const overUniqueQuery = (s: SelectBody, env: TypeEnv, catalog: RuleContext['catalog']): boolean => {
  const src = onlySourceQuery(s, env);
  if (!src || hasGroupAggregate(s.expressions) || mayReturnSet(s.expressions)) return false;
  const outputs = new Set(
    selectItems(s).flatMap((i) => {
      const ref = columnRef(i.expr);
      return ref && (ref.table === undefined || ref.table === src.alias) ? [ref.name] : [];
    }),
  );
  return uniqueOutputs(src.query, catalog, env).some((key) => key.every((c) => outputs.has(c)));
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'rows-already-unique',
    needs: ['uniqueness'],
    text: 'outside a membership test, the SELECT groups by plain keys (no ROLLUP/CUBE/GROUPING SETS, no window function) and outputs every key as the same expression: one row per group, and rows of different groups differ in a key under the same equality DISTINCT uses',
    holds: ({ s, underSetTest, overQuery }) =>
      underSetTest || overQuery !== undefined || groupKeysAllOutput(s),
  },
  {
    id: 'derived-rows-unique',
    needs: ['uniqueness', 'scope'],
    text: 'over a derived table or CTE, the DISTINCT SELECT reads only that one source (no join that could repeat its rows), has no GROUP BY, aggregate or set-returning function, and outputs as bare columns every column of a key that source is unique on: all its plain GROUP BY keys (output as bare columns), all its columns under its own plain DISTINCT, the primary key of its only table (catalog; no grouping), or nothing when it aggregates without GROUP BY (one row)',
    holds: ({ s, overQuery }) =>
      overQuery === undefined || overUniqueQuery(s, overQuery.env, overQuery.catalog),
  },
  {
    id: 'membership-only',
    needs: ['uniqueness'],
    text: 'under IN or EXISTS the subquery has no LIMIT/OFFSET/FETCH (which would count duplicates): the test asks whether a value occurs, not how often',
    holds: ({ s, underSetTest }) => !underSetTest || !hasRowLimit(s),
  },
];

/** A DISTINCT that only feeds a set test (IN, EXISTS): duplicates cannot change the test. */
const dropUnderSetTest = (query: unknown, ctx: RuleContext): unknown => {
  const s = bodyOf(query, 'select');
  if (!s || !isPlainDistinct(s)) return query;
  if (!discharge('redundant-distinct', OBLIGATIONS, { s, underSetTest: true }, ctx)) return query;
  return { select: { ...s, distinct: false } };
};

/**
 * `redundant-distinct`: removes DISTINCT where rows are already unique or duplicates cannot matter —
 * a grouped SELECT that outputs every plain group key (no ROLLUP/CUBE, no window function), a SELECT that
 * reads only a derived table or CTE and outputs a key it is unique on (its GROUP BY keys, its own DISTINCT
 * output, its only table's primary key), and the subquery of `IN (SELECT DISTINCT …)` or
 * `EXISTS (SELECT DISTINCT …)` without a row limit.
 *
 * Why results are kept: GROUP BY yields one row per distinct key tuple, so rows that carry all keys differ
 * pairwise; a projection and a filter of rows unique on a key that it outputs unchanged keeps them unique;
 * IN and EXISTS ask only whether a value (a row) occurs, not how often.
 *
 * @example `SELECT DISTINCT x.k, x.n FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) AS x WHERE x.n > 1` → the same without DISTINCT
 *
 * @example `SELECT DISTINCT a, COUNT(*) AS n FROM t GROUP BY a` → `SELECT a, COUNT(*) AS n FROM t GROUP BY a`
 */
export const redundantDistinct: RewriteRule = {
  name: 'redundant-distinct',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@distinct'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    let env: TypeEnv | undefined;
    const grouped = mapSelects(tree, (s) => {
      if (!isPlainDistinct(s)) return s;
      if (s.group_by !== null && s.group_by !== undefined)
        return discharge('redundant-distinct', OBLIGATIONS, { s, underSetTest: false }, ctx)
          ? { ...s, distinct: false }
          : s;
      env ??= typeEnv(tree, ctx.catalog, ctx.dialect);
      const e = env;
      const readsQuery = sourcesOf(s)?.some((src) => src.query !== undefined || e.ctes.has(src.node));
      if (!readsQuery) return s;
      const overQuery = { env, catalog: ctx.catalog };
      return discharge('redundant-distinct', OBLIGATIONS, { s, underSetTest: false, overQuery }, ctx)
        ? { ...s, distinct: false }
        : s;
    });
    return mapTree(grouped, (node, kind) => {
      if (kind === 'in') {
        const body = node.in as Record<string, unknown>;
        const next =
          body.query === undefined || body.query === null ? body.query : dropUnderSetTest(body.query, ctx);
        return next === body.query ? node : { in: { ...body, query: next } };
      }
      if (kind === 'exists') {
        const body = node.exists as Record<string, unknown>;
        const next = dropUnderSetTest(body.this, ctx);
        return next === body.this ? node : { exists: { ...body, this: next } };
      }
      return node;
    });
  },
};
