import { findTable } from '../../catalog.ts';
import type { Catalog } from '../../catalog.ts';
import { tableReferences } from '../../sql/references.ts';
import { isRecord, kindOf, visitObjects } from '../../sql/tree.ts';
import type { Statement } from '../../sql/tree.ts';
import { roundUsd } from '../model.ts';
import type { CostEstimate, CostModel } from '../model.ts';

/** Rows assumed for a table the catalog has no statistics for. */
const DEFAULT_ROWS = 1_000_000;
/** Selectivity per predicate kind, the classic System R guesses. */
const SELECTIVITY: Readonly<Record<string, number>> = {
  eq: 0.1,
  neq: 0.9,
  gt: 1 / 3,
  gte: 1 / 3,
  lt: 1 / 3,
  lte: 1 / 3,
  between: 0.25,
  like: 0.25,
  ilike: 0.25,
  in: 0.3,
  is_null: 0.1,
  not: 0.5,
  exists: 0.5,
};

/** Shape of a statement: what the heuristic prices. */
export type QueryShape = {
  rowsScanned: number;
  columnFraction: number;
  joins: number;
  selectivity: number;
  columns: number;
};

export const queryShape = (stmt: Statement, catalog: Catalog): QueryShape => {
  const refs = tableReferences(stmt, catalog);
  let rows = 0;
  let weightedFraction = 0;
  let columns = 0;
  for (const [name, cols] of refs) {
    const t = findTable(catalog, name);
    const r = t?.stats?.rows ?? DEFAULT_ROWS;
    const total = t?.columns.length ?? Math.max(1, cols.size);
    rows += r;
    weightedFraction += (r * Math.max(cols.size, 1)) / Math.max(total, 1);
    columns += cols.size;
  }
  let joins = 0;
  let selectivity = 1;
  visitObjects(stmt, (o) => {
    if (Array.isArray(o.joins)) joins += o.joins.length;
    // A subquery inside an expression (scalar, IN, EXISTS) is joined to its outer rows, and a correlated one
    // is run per outer row: at least a join's work (a derived table in FROM has an alias and is not counted).
    const sub = o.subquery;
    const scalar =
      kindOf(o) === 'subquery' && isRecord(sub) && (sub.alias === null || sub.alias === undefined);
    if (kindOf(o) === 'exists' || scalar) joins++;
    // A join's ON filters like a WHERE (a correlated subquery's equality read as a join stays as selective).
    const where = isRecord(o.where_clause) ? o.where_clause : o.on;
    if (isRecord(where)) {
      visitObjects(where, (p) => {
        const k = kindOf(p);
        if (k !== undefined && SELECTIVITY[k] !== undefined) selectivity *= SELECTIVITY[k];
      });
    }
  });
  return {
    rowsScanned: rows,
    columnFraction: rows > 0 ? weightedFraction / rows : 1,
    joins,
    selectivity: Math.max(selectivity, 1e-4),
    columns,
  };
};

export type SnowflakePricing = { usdPerCredit: number; creditsPerHour: number };
/** Rows an X-Small warehouse scans per second over all columns (columnar: narrower reads are faster). */
const SNOWFLAKE_ROWS_PER_SECOND = 50_000_000;

/**
 * Snowflake: time = rows × fraction of columns read / scan speed, × (1 + 0.5 per join) for join work on the
 * filtered rows; credits = time × credits per hour; USD = credits × price per credit.
 */
export const snowflakeHeuristic = (p: SnowflakePricing): CostModel => ({
  name: 'snowflake-heuristic',
  estimate: (stmt, catalog): CostEstimate => {
    const s = queryShape(stmt, catalog);
    const scanSeconds = (s.rowsScanned * s.columnFraction) / SNOWFLAKE_ROWS_PER_SECOND;
    const joinSeconds = (s.rowsScanned * s.selectivity * 0.5 * s.joins) / SNOWFLAKE_ROWS_PER_SECOND;
    const seconds = scanSeconds + joinSeconds;
    return {
      usd: roundUsd((seconds / 3600) * p.creditsPerHour * p.usdPerCredit),
      method: 'heuristic',
      assumptions: {
        usd_per_credit: p.usdPerCredit,
        credits_per_hour: p.creditsPerHour,
        rows_per_second: SNOWFLAKE_ROWS_PER_SECOND,
        rows_scanned: s.rowsScanned,
        column_fraction: Number(s.columnFraction.toFixed(4)),
        joins: s.joins,
        filter_selectivity: Number(s.selectivity.toFixed(6)),
      },
    };
  },
});

export type AuroraPricing = { usdPerMillionIo: number; usdPerAcuHour: number };
const PAGE_BYTES = 8192;
const ROW_BYTES = 128;
const ROWS_PER_ACU_SECOND = 2_000_000;

/**
 * Aurora (row store): pages read = rows × row width / 8 KiB (a row is read whole, so column count matters
 * only through width), reduced by filter selectivity only for the first table (an index can serve it);
 * joins add CPU on the filtered rows. USD = I/O requests × price + ACU-seconds × price.
 */
export const auroraHeuristic = (p: AuroraPricing): CostModel => ({
  name: 'aurora-heuristic',
  estimate: (stmt, catalog): CostEstimate => {
    const s = queryShape(stmt, catalog);
    const pages = Math.ceil((s.rowsScanned * ROW_BYTES) / PAGE_BYTES);
    const cpuSeconds =
      (s.rowsScanned * (1 + s.joins * s.selectivity)) / ROWS_PER_ACU_SECOND + s.columns * 1e-6;
    const usd = (pages / 1e6) * p.usdPerMillionIo + (cpuSeconds / 3600) * p.usdPerAcuHour;
    return {
      usd: roundUsd(usd),
      method: 'heuristic',
      assumptions: {
        usd_per_million_io: p.usdPerMillionIo,
        usd_per_acu_hour: p.usdPerAcuHour,
        page_bytes: PAGE_BYTES,
        row_bytes: ROW_BYTES,
        rows_per_acu_second: ROWS_PER_ACU_SECOND,
        io_requests: pages,
        joins: s.joins,
        filter_selectivity: Number(s.selectivity.toFixed(6)),
      },
    };
  },
});
