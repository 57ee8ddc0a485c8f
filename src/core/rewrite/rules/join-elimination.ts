import { findTable } from '../../catalog.ts';
import type { Catalog } from '../../catalog.ts';
import { isRecord } from '../../sql/tree.ts';
import { cteNames } from '../column-types.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import {
  hasRowLimit,
  isVolatileOrOpaque,
  mapSelects,
  plainGroupKeys,
  selectItems,
  sourceOf,
  sourcesOf,
} from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import { bodyOf, columnRef, conjuncts, sameNode, someNode } from '../tree-ops.ts';

/** Columns of `alias` that the ON condition equates with an expression not reading `alias`. */
const equatedColumns = (on: unknown, alias: string): Set<string> => {
  const cols = new Set<string>();
  for (const c of conjuncts(on)) {
    const eq = bodyOf(c, 'eq');
    if (!eq) continue;
    for (const [mine, other] of [
      [eq.left, eq.right],
      [eq.right, eq.left],
    ]) {
      const ref = columnRef(mine);
      const readsAlias = someNode(other, (n, k) => k === 'column' && columnRef(n)?.table === alias);
      if (ref?.table === alias && !readsAlias && !isVolatileOrOpaque(other)) cols.add(ref.name);
    }
  }
  return cols;
};

/** Sets of output columns of the joined item that are unique: catalog keys, or a derived table's grouping. */
const uniqueKeysOf = (src: Source, catalog: Catalog | undefined, ctes: ReadonlySet<string>): string[][] => {
  if (src.table !== undefined) {
    if (ctes.has(src.table)) return [];
    const info = findTable(catalog, src.table);
    if (!info || (bodyOf(src.node, 'table')?.schema ?? null) !== null) return [];
    return [info.primaryKey ?? [], ...(info.uniqueKeys ?? [])]
      .filter((k) => k.length > 0)
      .map((k) => k.map((c) => c.toLowerCase()));
  }
  const s = bodyOf(src.query, 'select');
  if (!s || hasRowLimit(s)) return [];
  const items = selectItems(s);
  if (s.distinct === true && (s.distinct_on === null || s.distinct_on === undefined)) {
    const names = items.map((i) => i.name);
    return names.every((n) => n !== undefined) ? [names] : [];
  }
  const keys = plainGroupKeys(s);
  if (!keys) return [];
  const names = keys.map(
    (k) => items.find((i) => columnRef(k) && i.expr !== undefined && sameNode(i.expr, k))?.name,
  );
  return names.every((n): n is string => n !== undefined) ? [names] : [];
};

/** Whether anything outside join `index` could read the joined item (qualified, unqualified or via `*`). */
const usedElsewhere = (
  s: SelectBody,
  index: number,
  src: Source,
  all: Source[],
  catalog: Catalog | undefined,
): boolean => {
  const rest = { ...s, joins: (s.joins as unknown[]).filter((_, i) => i !== index) };
  const ownNames = (): Set<string> | undefined => {
    if (src.table !== undefined) {
      const info = findTable(catalog, src.table);
      return info ? new Set(info.columns.map((c) => c.name.toLowerCase())) : undefined;
    }
    const s2 = bodyOf(src.query, 'select');
    return s2 ? new Set(selectItems(s2).map((i) => i.name ?? '')) : undefined;
  };
  const names = ownNames();
  if (!names || all.filter((x) => x.alias === src.alias).length > 1) return true;
  return someNode(rest, (n, k) => {
    if (k === 'star') return true;
    const ref = k === 'column' ? columnRef(n) : undefined;
    if (!ref) return false;
    return ref.name === '*' || ref.table === src.alias || (ref.table === undefined && names.has(ref.name));
  });
};

const eliminate = (s: SelectBody, catalog: Catalog | undefined, ctes: ReadonlySet<string>): SelectBody => {
  const joins = Array.isArray(s.joins) ? (s.joins as unknown[]) : [];
  const all = sourcesOf(s);
  if (!all) return s;
  for (let i = joins.length - 1; i >= 0; i--) {
    const j = joins[i];
    if (!isRecord(j) || j.kind !== 'Left' || j.on === null || j.on === undefined) continue;
    if (Array.isArray(j.using) && j.using.length > 0) continue;
    const src = sourceOf(j.this, i);
    if (!src || isVolatileOrOpaque(j.on)) continue;
    const equated = equatedColumns(j.on, src.alias);
    const unique = uniqueKeysOf(src, catalog, ctes).some((k) => k.every((c) => equated.has(c)));
    if (!unique || usedElsewhere(s, i, src, all, catalog)) continue;
    return { ...s, joins: joins.filter((_, x) => x !== i) };
  }
  return s;
};

/**
 * `join-elimination`: removes a LEFT JOIN none of whose columns are used anywhere else in the SELECT, when
 * its ON condition equates a unique key of the joined item (catalog primary or unique key, or all GROUP BY
 * keys / the DISTINCT output of a derived table) with expressions of the other side.
 *
 * Why results are kept: a LEFT JOIN keeps every left row; with the key equated, each left row matches at
 * most one right row, so the join neither drops nor duplicates rows; it only adds columns, and none is read.
 * Extra ON conditions can only turn matches into non-matches, which changes nothing either.
 *
 * @example `SELECT o.o_orderkey FROM orders o LEFT JOIN customer c ON c.c_custkey = o.o_custkey` → `SELECT o.o_orderkey FROM orders o`
 */
export const joinElimination: RewriteRule = {
  name: 'join-elimination',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@join:Left'],
  apply: (tree, ctx) => {
    const ctes = cteNames(tree);
    return mapSelects(tree, (s) => eliminate(s, ctx.catalog, ctes));
  },
};
