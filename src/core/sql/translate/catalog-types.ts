import type { Catalog } from '../../catalog.ts';
import type { ColumnTypeOf } from './types.ts';

/**
 * Column types from a catalog, for the translations that depend on an argument's type: a qualified column by
 * its table's name, an unqualified one when exactly one table has a column of that name. Aliases are not
 * resolved; a column found nowhere (or in several tables) has no known type, and the translation that needs
 * one falls back to DuckDB's own typing.
 */
export const catalogColumnTypes = (catalog: Catalog): ColumnTypeOf => {
  const unique = new Map<string, ReturnType<ColumnTypeOf>>();
  for (const table of catalog.tables.values()) {
    for (const c of table.columns) {
      const k = c.name.toLowerCase();
      unique.set(k, unique.has(k) ? undefined : c.type);
    }
  }
  return (column, table) => {
    const t = table === undefined ? undefined : catalog.tables.get(table.toLowerCase());
    const own = t?.columns.find((c) => c.name.toLowerCase() === column.toLowerCase());
    return own?.type ?? unique.get(column.toLowerCase());
  };
};
