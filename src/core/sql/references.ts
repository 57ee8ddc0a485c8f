import { findTable } from '../catalog.ts';
import type { Catalog } from '../catalog.ts';
import { isRecord, visitObjects } from './tree.ts';
import type { Statement } from './tree.ts';

type Ident = { name: string };
const identName = (v: unknown): string | undefined =>
  isRecord(v) && typeof (v as Ident).name === 'string' ? (v as Ident).name : undefined;

/** The base tables a statement scans and, per table, the columns it references (names as in the catalog). */
export type TableReferences = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Attributes column references to the base tables they read. Resolution is by qualifier (alias or table
 * name) and, for unqualified names, by the catalog (every scanned table that has such a column). `*`
 * expands to the base tables of its own FROM clause; `COUNT(*)` reads no column. CTE names are not tables.
 * When unsure it attributes more, never less, so byte estimates err high.
 *
 * @example tableReferences(parse('SELECT a FROM t'), catalog) // Map { 't' => Set { 'a' } }
 */
export const tableReferences = (stmt: Statement, catalog: Catalog): TableReferences => {
  const cteNames = new Set<string>();
  visitObjects(stmt, (o) => {
    const w = o.with;
    if (isRecord(w) && Array.isArray(w.ctes)) {
      for (const c of w.ctes) if (isRecord(c)) cteNames.add((identName(c.alias) ?? '').toLowerCase());
    }
  });
  const refs = new Map<string, Set<string>>();
  const byQualifier = new Map<string, Set<string>>();
  const tableOf = (node: unknown): { name: string; alias: string } | undefined => {
    if (!isRecord(node) || !isRecord(node.table)) return undefined;
    const t = node.table;
    const name = identName(t.name);
    if (name === undefined || cteNames.has(name.toLowerCase())) return undefined;
    const info = findTable(catalog, name);
    return { name: info?.name ?? name, alias: identName(t.alias) ?? name };
  };
  const allColumns = (table: string): string[] => findTable(catalog, table)?.columns.map((c) => c.name) ?? [];
  const add = (table: string, column: string): void => {
    const set = refs.get(table) ?? new Set<string>();
    const info = findTable(catalog, table);
    const col = info?.columns.find((c) => c.name.toLowerCase() === column.toLowerCase());
    if (col) set.add(col.name);
    refs.set(table, set);
  };

  const selects: Array<Record<string, unknown>> = [];
  visitObjects(stmt, (o) => {
    if (isRecord(o.select)) selects.push(o.select);
    const t = tableOf(o);
    if (t && !refs.has(t.name)) refs.set(t.name, new Set());
    if (t) {
      const q = byQualifier.get(t.alias.toLowerCase()) ?? new Set<string>();
      q.add(t.name);
      byQualifier.set(t.alias.toLowerCase(), q);
    }
  });

  for (const sel of selects) {
    const from: unknown[] =
      isRecord(sel.from) && Array.isArray(sel.from.expressions) ? sel.from.expressions : [];
    const joins: unknown[] = Array.isArray(sel.joins)
      ? sel.joins.map((j: unknown) => (isRecord(j) ? j.this : undefined))
      : [];
    const scoped = [...from, ...joins].map(tableOf).filter((t) => t !== undefined);
    const exprs = Array.isArray(sel.expressions) ? sel.expressions : [];
    for (const e of exprs) {
      if (!isRecord(e) || !isRecord(e.star)) continue;
      const q = identName(e.star.table)?.toLowerCase();
      for (const t of scoped) {
        if (q === undefined || t.alias.toLowerCase() === q)
          for (const c of allColumns(t.name)) add(t.name, c);
      }
    }
  }

  const scanned = [...refs.keys()];
  visitObjects(stmt, (o) => {
    if (!isRecord(o.column)) return;
    const name = identName(o.column.name);
    if (name === undefined) return;
    const qualifier = identName(o.column.table)?.toLowerCase();
    const candidates = qualifier === undefined ? scanned : [...(byQualifier.get(qualifier) ?? [])];
    for (const t of candidates) {
      if (allColumns(t).some((c) => c.toLowerCase() === name.toLowerCase())) add(t, name);
    }
  });
  return refs;
};

/** A table as a query names it: `name`, optionally qualified (`schema.name`, `catalog.schema.name`). */
export type NamedTable = { readonly catalog?: string; readonly schema?: string; readonly name: string };

/**
 * The tables a statement names, qualified as written, each once (CTE names excluded), without a catalog: what
 * an adapter with a large catalog needs to load for this query.
 *
 * @example namedTables(parse('SELECT 1 FROM ds.t JOIN t ON true')) // [{ schema: 'ds', name: 't' }, { name: 't' }]
 */
export const namedTables = (stmt: Statement): NamedTable[] => {
  const cteNames = new Set<string>();
  visitObjects(stmt, (o) => {
    const w = o.with;
    if (isRecord(w) && Array.isArray(w.ctes))
      for (const c of w.ctes) if (isRecord(c)) cteNames.add((identName(c.alias) ?? '').toLowerCase());
  });
  const seen = new Map<string, NamedTable>();
  visitObjects(stmt, (o) => {
    if (!isRecord(o.table)) return;
    const name = identName(o.table.name);
    if (name === undefined) return;
    const schema = identName(o.table.schema);
    const catalog = identName(o.table.catalog);
    if (schema === undefined && catalog === undefined && cteNames.has(name.toLowerCase())) return;
    const t: NamedTable = {
      ...(catalog !== undefined ? { catalog } : {}),
      ...(schema !== undefined ? { schema } : {}),
      name,
    };
    seen.set([catalog, schema, name].join('\u0000'), t);
  });
  return [...seen.values()];
};
