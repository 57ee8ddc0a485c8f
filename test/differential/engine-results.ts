import type { ResultSet } from './duckdb-harness.ts';

/**
 * Result sets from PostgreSQL and MariaDB in the form `compareResults` (duckdb-harness.ts) compares: column
 * names and each row as canonical JSON. Doubles are cut to 12 significant digits (a rewritten plan may sum
 * in another order); dates become ISO text; numeric / decimal strings stay text (both sides see one type).
 */
const canon = (v: unknown): unknown => {
  if (typeof v === 'number') return Number.isInteger(v) ? v : Number(v.toPrecision(12));
  if (typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString();
  if (Buffer.isBuffer(v)) return v.toString('hex');
  return v;
};

export const toResultSet = (columns: string[], rows: readonly unknown[][]): ResultSet => ({
  columns,
  rows: rows.map((r) => JSON.stringify(r.map(canon))),
});

/** Whether the outermost query orders its rows (then the order must match too). */
export const ordersResult = (stmt: unknown): boolean => {
  const body = (stmt as Record<string, Record<string, unknown> | undefined>)[
    Object.keys(stmt as object)[0] ?? ''
  ];
  return body !== undefined && body.order_by !== null && body.order_by !== undefined;
};
