import type { ExplainResult } from './adapter.ts';

/** Size of a relation as the catalog knows it (pages in the engine's page size). */
export type RelationSize = { readonly pages: number; readonly rows: number };
export type RelationSizes = ReadonlyMap<string, RelationSize>;

const num = (v: unknown): number => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : 0;
};
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const PG_PAGE_BYTES = 8192;
const PG_FULL_SCANS = new Set(['Seq Scan', 'Sample Scan']);

/**
 * PostgreSQL `EXPLAIN (FORMAT JSON)` → estimate. A full scan reads every page and row of its relation
 * (pg_class.relpages/reltuples, which the plan itself does not show); an index or bitmap scan is charged one
 * heap page per estimated row, capped at the relation's pages. Nested-loop repetitions are not visible
 * without ANALYZE, so inner scans count once: the estimate is a lower bound for such plans.
 *
 * @example parsePgExplain([{ Plan: { 'Node Type': 'Seq Scan', 'Relation Name': 't', 'Plan Rows': 5,
 *   'Total Cost': 1.05 } }], new Map([['t', { pages: 1, rows: 5 }]])) // rowsScanned 5, pages 1
 */
export const parsePgExplain = (raw: unknown, sizes: RelationSizes): ExplainResult => {
  const top = Array.isArray(raw) && isRecord(raw[0]) && isRecord(raw[0].Plan) ? raw[0].Plan : undefined;
  if (!top) throw new Error('EXPLAIN returned no plan');
  let rowsScanned = 0;
  let pages = 0;
  const walk = (node: Record<string, unknown>): void => {
    const relation = node['Relation Name'];
    if (typeof relation === 'string') {
      const size = sizes.get(relation.toLowerCase());
      const planRows = num(node['Plan Rows']);
      const widthPages = Math.ceil((planRows * num(node['Plan Width'])) / PG_PAGE_BYTES);
      if (PG_FULL_SCANS.has(String(node['Node Type']))) {
        rowsScanned += size ? Math.max(size.rows, planRows) : planRows;
        pages += size ? size.pages : widthPages;
      } else {
        rowsScanned += planRows;
        pages += size ? Math.min(size.pages, Math.max(1, planRows)) : Math.max(1, widthPages);
      }
    }
    const children = node.Plans;
    if (Array.isArray(children)) for (const c of children) if (isRecord(c)) walk(c);
  };
  walk(top);
  return {
    rowsScanned,
    rowsReturned: num(top['Plan Rows']),
    pages,
    totalCost: num(top['Total Cost']),
    raw,
  };
};

/** Relation names a PostgreSQL plan reads (to look their sizes up in pg_class). */
export const pgPlanRelations = (raw: unknown): string[] => {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isRecord(v)) {
      if (typeof v['Relation Name'] === 'string') out.add(v['Relation Name']);
      Object.values(v).forEach(walk);
    }
  };
  walk(raw);
  return [...out];
};

const MYSQL_FULL_SCANS = new Set(['ALL', 'index']);

/**
 * MySQL `EXPLAIN FORMAT=JSON` (MySQL 8: rows_examined_per_scan, cost_info) or MariaDB (rows, filtered) →
 * estimate. Full scans (`ALL`, `index`) read every InnoDB page of the table (information_schema data_length
 * / 16 KiB); other access types one page per examined row, capped. Rows returned is the last joined table's
 * produced rows: grouping and LIMIT are not modelled, so it is an upper bound.
 */
export const parseMysqlExplain = (raw: unknown, sizes: RelationSizes): ExplainResult => {
  const block = isRecord(raw) && isRecord(raw.query_block) ? raw.query_block : undefined;
  if (!block) throw new Error('EXPLAIN returned no query block');
  let rowsScanned = 0;
  let pages = 0;
  let rowsReturned = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isRecord(v)) return;
    if (typeof v.table_name === 'string') {
      const examined = num(v.rows_examined_per_scan ?? v.rows);
      const size = sizes.get(v.table_name.toLowerCase());
      rowsScanned += examined;
      pages += MYSQL_FULL_SCANS.has(String(v.access_type))
        ? (size?.pages ?? Math.max(1, Math.ceil(examined / 100)))
        : Math.min(size?.pages ?? Infinity, Math.max(1, examined));
      rowsReturned =
        v.rows_produced_per_join !== undefined
          ? num(v.rows_produced_per_join)
          : (examined * (v.filtered === undefined ? 100 : num(v.filtered))) / 100;
    }
    Object.values(v).forEach(walk);
  };
  walk(block);
  const costInfo = isRecord(block.cost_info) ? block.cost_info : {};
  const totalCost = num(costInfo.query_cost ?? block.cost) || rowsScanned;
  return { rowsScanned, rowsReturned, pages, totalCost, raw };
};
