import { isRecord } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { hasAggregate, mapSelects, plainGroupKeys, selectItems, sourcesOf } from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import { cteOccurrences, hasWith, mapWithNodes, replaceDerived } from '../scopes.ts';
import { bodyOf, columnRef, identName, someNode } from '../tree-ops.ts';

/** Functions that return a set: removing one from a select list would change the number of rows. */
const SET_RETURNING = new Set([
  'generate_series',
  'generate_subscripts',
  'unnest',
  'explode',
  'posexplode',
  'inline',
  'flatten',
  'json_array_elements',
  'json_array_elements_text',
  'jsonb_array_elements',
  'jsonb_array_elements_text',
  'json_each',
  'json_each_text',
  'jsonb_each',
  'jsonb_each_text',
  'json_object_keys',
  'jsonb_object_keys',
  'regexp_matches',
  'regexp_split_to_table',
  'string_to_table',
]);

const returnsSet = (v: unknown): boolean =>
  someNode(v, (n, k) => {
    const f = bodyOf(n, 'function');
    const name = f && typeof f.name === 'string' ? f.name.toLowerCase() : k;
    return SET_RETURNING.has(name);
  });

/**
 * Names of `src`'s columns that `s` may read, or undefined when it may read them all (`*`, `t.*`, the row
 * itself as a value, USING / NATURAL joins). Unqualified names count as read: they may resolve to it.
 */
const namesRead = (s: SelectBody, src: Source): Set<string> | undefined => {
  const joins = Array.isArray(s.joins) ? s.joins : [];
  // NATURAL [LEFT|RIGHT|FULL] JOIN and USING read same-named columns without naming them.
  const implicit = (j: unknown): boolean =>
    !isRecord(j) || String(j.kind).startsWith('Natural') || (Array.isArray(j.using) && j.using.length > 0);
  if (joins.some(implicit)) return undefined;
  const names = new Set<string>();
  // The SELECT's own WITH cannot see its FROM items; its CTE bodies' unqualified names are not reads.
  const all = someNode(
    { ...s, with: null },
    (n, k) => {
      if (k === 'star') {
        const t = identName(bodyOf(n, 'star')?.table);
        return t === undefined || t === src.alias;
      }
      const ref = k === 'column' ? columnRef(n) : undefined;
      if (!ref) return false;
      if (ref.name === '*' || (ref.table === undefined && ref.name === src.alias)) return true;
      if (ref.table === undefined || ref.table === src.alias) names.add(ref.name);
      return false;
    },
    (n) => n !== src.node,
  );
  return all ? undefined : names;
};

/** Unqualified names the SELECT reads outside item `except` (aliases may be read by GROUP BY, ORDER BY…). */
const namesWithin = (inner: SelectBody, except: unknown): Set<string> => {
  const names = new Set<string>();
  someNode(
    { ...inner, expressions: (inner.expressions as unknown[]).filter((e) => e !== except) },
    (n, k) => {
      const ref = k === 'column' ? columnRef(n) : undefined;
      if (ref && ref.table === undefined) names.add(ref.name);
      return false;
    },
  );
  return names;
};

/** `GROUP BY 1` / `ORDER BY 2`: positions into the select list, which removing an item would shift. */
const isOrdinal = (e: unknown): boolean => {
  const lit = bodyOf(e, 'literal') ?? (isRecord(e) ? bodyOf(e.this, 'literal') : undefined);
  return lit !== undefined && lit.literal_type === 'number';
};

const listOf = (clause: unknown): unknown[] =>
  isRecord(clause) && Array.isArray(clause.expressions) ? clause.expressions : [];

/** An item that outputs a column under its own name: any clause reading that name still finds the input column. */
const ownName = (i: { name: string | undefined; expr: unknown }): boolean =>
  columnRef(i.expr)?.name === i.name;

/** One select item of a derived table or CTE body, and the names its readers use (undefined: all). */
type Site = {
  readonly inner: SelectBody;
  readonly item: ReturnType<typeof selectItems>[number];
  readonly read: ReadonlySet<string> | undefined;
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'column-unread',
    needs: ['scope'],
    text: 'no reader names the column: every reader of the derived table or CTE lists the names it reads (no `*`, `t.*`, whole-row reference, USING or NATURAL join) and this name is not among them (unqualified names count as read)',
    holds: ({ item, read }) => read !== undefined && item.name !== undefined && !read.has(item.name),
  },
  {
    id: 'row-count-kept',
    needs: ['determinism'],
    text: 'removing the item changes no row count or grouping: the body has no DISTINCT / DISTINCT ON (fewer columns would merge rows), no aggregate without GROUP BY, no ordinal GROUP BY / ORDER BY (positions would shift), and the item returns no set',
    holds: ({ inner, item }) => {
      if (inner.distinct === true || (inner.distinct_on !== null && inner.distinct_on !== undefined))
        return false;
      const grouped = inner.group_by !== null && inner.group_by !== undefined;
      if (grouped ? !plainGroupKeys(inner) : hasAggregate(inner.expressions)) return false;
      if ([...listOf(inner.group_by), ...listOf(inner.order_by)].some(isOrdinal)) return false;
      return !returnsSet(item.expr);
    },
  },
  {
    id: 'name-not-read-inside',
    needs: ['scope'],
    text: "the body's own clauses (WHERE, GROUP BY, HAVING, ORDER BY, QUALIFY, WINDOW) do not read the item's name, unless the item outputs a column under its own name (the clause then still finds that column)",
    holds: ({ inner, item }) => ownName(item) || !namesWithin(inner, item.item).has(item.name ?? ''),
  },
];

/** The body without the items whose names `read` lacks, or the same query when none can go. */
const prune = (query: unknown, read: ReadonlySet<string> | undefined, ctx: RuleContext): unknown => {
  const inner = bodyOf(query, 'select');
  if (!inner) return query;
  const items = selectItems(inner);
  const drop = new Set(
    items
      .filter((item) => item.name === undefined || read === undefined || !read.has(item.name))
      .filter((item) => discharge('unused-columns', OBLIGATIONS, { inner, item, read }, ctx))
      .map((i) => i.item),
  );
  if (drop.size === 0) return query;
  let kept = items.filter((i) => !drop.has(i.item)).map((i) => i.item);
  if (kept.length === 0) kept = [items[0]?.item];
  return kept.length === items.length ? query : { select: { ...inner, expressions: kept } };
};

const pruneDerived = (s: SelectBody, ctx: RuleContext): SelectBody => {
  const sources = sourcesOf(s);
  if (!sources) return s;
  let next = s;
  for (const src of sources) {
    const sub = bodyOf(src.node, 'subquery');
    if (
      !sub ||
      !bodyOf(src.query, 'select') ||
      (Array.isArray(sub.column_aliases) && sub.column_aliases.length)
    )
      continue;
    const pruned = prune(src.query, namesRead(s, src), ctx);
    if (pruned !== src.query) next = replaceDerived(next, src, pruned);
  }
  return next;
};

/**
 * Per CTE name of `names`, the column names its readers in `scope` use; absent when a reader may use all,
 * is not a FROM item we understand, or the name is defined twice (shadowing). One walk for all CTEs.
 */
const cteNamesRead = (scope: unknown, names: ReadonlySet<string>): Map<string, Set<string>> => {
  const counts = cteOccurrences(scope);
  const read = new Map<string, Set<string> | undefined>();
  const seen = new Map<string, number>();
  mapSelects(scope, (s) => {
    for (const src of sourcesOf(s) ?? []) {
      const name = src.table;
      if (name === undefined || !names.has(name) || bodyOf(src.node, 'table')?.schema != null) continue;
      seen.set(name, (seen.get(name) ?? 0) + 1);
      const used = namesRead(s, src);
      const acc = read.has(name) ? read.get(name) : new Set<string>();
      if (acc && used) for (const n of used) acc.add(n);
      read.set(name, used ? acc : undefined);
    }
    return s;
  });
  const out = new Map<string, Set<string>>();
  for (const name of names) {
    const c = counts.get(name);
    const r = read.get(name) ?? (seen.has(name) ? undefined : new Set<string>());
    if (c?.defs === 1 && (seen.get(name) ?? 0) === c.refs && r) out.set(name, r);
  }
  return out;
};

const pruneCtes = (node: SqlNode, kind: string, ctx: RuleContext): SqlNode => {
  const body = bodyOf(node, kind);
  const w = body?.with;
  if (!body || !isRecord(w) || w.recursive === true || !Array.isArray(w.ctes)) return node;
  const names = new Set(
    w.ctes.flatMap((c: unknown) => {
      const name =
        isRecord(c) && !(Array.isArray(c.columns) && c.columns.length > 0) ? identName(c.alias) : undefined;
      return name === undefined ? [] : [name];
    }),
  );
  if (names.size === 0) return node;
  const readers = cteNamesRead(node, names);
  const ctes = w.ctes.map((c: unknown) => {
    const name = isRecord(c) ? identName(c.alias) : undefined;
    const read = name === undefined ? undefined : readers.get(name);
    const pruned = read && isRecord(c) ? prune(c.this, read, ctx) : undefined;
    return pruned === undefined || !isRecord(c) || pruned === c.this ? c : { ...c, this: pruned };
  });
  return ctes.every((c, i) => c === (w.ctes as unknown[])[i])
    ? node
    : { [kind]: { ...body, with: { ...w, ctes } } };
};

/**
 * `unused-columns`: removes select items of derived tables and CTEs that no reader uses. The outermost
 * select list (the result) is never touched.
 *
 * Why results are kept: a derived table or CTE is read only by name; a column nobody names cannot reach the
 * result, and a select item without a set-returning function does not change the number of rows. It does not
 * fire when a reader may see all columns (`*`, `t.*`, the row as a value, USING, NATURAL), under DISTINCT
 * (fewer columns would merge rows), on an aggregate without GROUP BY, with ordinal GROUP BY / ORDER BY, on an
 * alias that the body's own clauses read, on set-operation bodies (positional), or on a CTE with a column list.
 *
 * @example `SELECT d.a FROM (SELECT a, b FROM t) AS d` → `SELECT d.a FROM (SELECT a FROM t) AS d`
 */
export const unusedColumns: RewriteRule = {
  name: 'unused-columns',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['subquery', '@with'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const derived = mapSelects(tree, (s) => pruneDerived(s, ctx));
    return hasWith(derived) ? mapWithNodes(derived, (n, k) => pruneCtes(n, k, ctx)) : derived;
  },
};
