import type { Catalog, ColumnType } from '../catalog.ts';
import { findTable } from '../catalog.ts';
import { isRecord } from '../sql/tree.ts';
import { sourcesOf } from './selects.ts';
import type { SelectBody, Source } from './selects.ts';
import { bodyOf, columnRef, identName, someNode } from './tree-ops.ts';

/** Lower-cased names of every CTE defined anywhere in the tree: such a name never means a catalog table. */
export const cteNames = (tree: unknown): Set<string> => {
  const names = new Set<string>();
  someNode(tree, (n, k) => {
    const w = bodyOf(n, k)?.with;
    if (isRecord(w) && Array.isArray(w.ctes))
      for (const c of w.ctes) {
        const name = isRecord(c) ? identName(c.alias) : undefined;
        if (name !== undefined) names.add(name);
      }
    return false;
  });
  return names;
};

/**
 * The catalog type of a column reference as SQL would resolve it inside this SELECT, or undefined when it is
 * not certain: an unknown qualifier (an outer query's column), a derived table or CTE source, or an
 * unqualified name that no single catalog table of the SELECT owns.
 */
export const columnTypeIn = (
  s: SelectBody,
  ref: unknown,
  catalog: Catalog | undefined,
  ctes: ReadonlySet<string>,
): ColumnType | undefined => {
  const col = columnRef(ref);
  const sources = sourcesOf(s);
  if (!col || !sources || !catalog) return undefined;
  const typeIn = (src: Source): ColumnType | undefined | null => {
    const table = src.table;
    const node = bodyOf(src.node, 'table');
    // A column list renames the table's columns: its names no longer say which column is meant.
    if (table === undefined || ctes.has(table) || !node) return null;
    if (Array.isArray(node.column_aliases) && node.column_aliases.length > 0) return null;
    const info = findTable(catalog, table);
    if (!info) return null;
    return info.columns.find((c) => c.name.toLowerCase() === col.name)?.type;
  };
  if (col.table !== undefined) {
    const src = sources.filter((x) => x.alias === col.table);
    const t = src.length === 1 && src[0] ? typeIn(src[0]) : null;
    return t ?? undefined;
  }
  let found: ColumnType | undefined;
  for (const src of sources) {
    const t = typeIn(src);
    if (t === null) return undefined; // a source we cannot see into might own the name
    if (t !== undefined) {
      if (found !== undefined) return undefined; // ambiguous
      found = t;
    }
  }
  return found;
};
