import type { Queryable } from './db.ts';
import { toQueryLogRecord } from './query-log.ts';
import type { QueryLogRecord } from './query-log.ts';

/** The dashboard's view of one account's query log: filtered pages, one entry, and aggregates. */
export type QueryLogFilter = {
  warehouse?: string | undefined;
  status?: 'ok' | 'error' | undefined;
  /** Inclusive range of UTC days. */
  from?: Date | undefined;
  to?: Date | undefined;
};

type LogRow = Parameters<typeof toQueryLogRecord>[0];
const DAY_MS = 86_400_000;

const whereOf = (accountId: string, f: QueryLogFilter): { sql: string; params: unknown[] } => {
  const params: unknown[] = [accountId];
  const parts = ['account_id = $1'];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    parts.push(clause.replace('?', `$${params.length}`));
  };
  if (f.warehouse !== undefined) add('warehouse = ?', f.warehouse);
  if (f.status !== undefined) add('status = ?', f.status);
  if (f.from !== undefined) add('created_at >= ?', f.from);
  if (f.to !== undefined) add('created_at < ?', new Date(f.to.getTime() + DAY_MS));
  return { sql: parts.join(' AND '), params };
};

export const searchQueryLog = async (
  db: Queryable,
  accountId: string,
  filter: QueryLogFilter,
  limit: number,
  offset: number,
): Promise<{ records: QueryLogRecord[]; total: number }> => {
  const w = whereOf(accountId, filter);
  const n = w.params.length;
  const { rows } = await db.query<LogRow>(
    `SELECT * FROM query_log WHERE ${w.sql} ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...w.params, limit, offset],
  );
  const count = await db.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM query_log WHERE ${w.sql}`,
    w.params,
  );
  return { records: rows.map(toQueryLogRecord), total: Number(count.rows[0]?.n ?? 0) };
};

/** One entry of that account; undefined for another account's entry, so it reads as not found. */
export const findQueryLogEntry = async (
  db: Queryable,
  accountId: string,
  id: string,
): Promise<QueryLogRecord | undefined> => {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  const { rows } = await db.query<LogRow>('SELECT * FROM query_log WHERE id = $1 AND account_id = $2', [
    id,
    accountId,
  ]);
  return rows[0] ? toQueryLogRecord(rows[0]) : undefined;
};

export type Totals = { queries: number; original: number; optimized: number; saved: number };
type TotalsRow = {
  queries: string | number;
  original: number | null;
  optimized: number | null;
  saved: number | null;
};
const toTotals = (r: TotalsRow | undefined): Totals => ({
  queries: Number(r?.queries ?? 0),
  original: Number(r?.original ?? 0),
  optimized: Number(r?.optimized ?? 0),
  saved: Number(r?.saved ?? 0),
});
const SUMS = `count(*) AS queries, coalesce(sum(original_cost), 0) AS original,
  coalesce(sum(optimized_cost), 0) AS optimized, coalesce(sum(savings), 0) AS saved`;

export const queryTotals = async (db: Queryable, accountId: string): Promise<Totals> => {
  const { rows } = await db.query<TotalsRow>(`SELECT ${SUMS} FROM query_log WHERE account_id = $1`, [
    accountId,
  ]);
  return toTotals(rows[0]);
};

export const totalsByWarehouse = async (
  db: Queryable,
  accountId: string,
): Promise<Array<Totals & { warehouse: string }>> => {
  const { rows } = await db.query<TotalsRow & { warehouse: string }>(
    `SELECT warehouse, ${SUMS} FROM query_log WHERE account_id = $1 GROUP BY warehouse ORDER BY saved DESC, warehouse`,
    [accountId],
  );
  return rows.map((r) => ({ warehouse: r.warehouse, ...toTotals(r) }));
};

/** Savings are credited to every rule that changed the query (a query with two rules counts for both). */
export const topRulesBySavings = async (
  db: Queryable,
  accountId: string,
  limit: number,
): Promise<Array<{ rule: string; queries: number; saved: number }>> => {
  const { rows } = await db.query<{ rule: string; queries: string | number; saved: number | null }>(
    `SELECT r.rule AS rule, count(*) AS queries, coalesce(sum(q.savings), 0) AS saved
       FROM query_log q CROSS JOIN LATERAL jsonb_array_elements_text(q.rules_applied) AS r(rule)
      WHERE q.account_id = $1 GROUP BY r.rule ORDER BY saved DESC, queries DESC, rule LIMIT $2`,
    [accountId, limit],
  );
  return rows.map((r) => ({ rule: r.rule, queries: Number(r.queries), saved: Number(r.saved ?? 0) }));
};

/** One point per UTC day of the last `days` days, including days without queries. */
export const dailySeries = async (
  db: Queryable,
  accountId: string,
  days: number,
  now: Date = new Date(),
): Promise<Array<{ day: string; queries: number; saved: number }>> => {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = new Date(today - (days - 1) * DAY_MS);
  const { rows } = await db.query<{ day: string; queries: string | number; saved: number | null }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS queries,
            coalesce(sum(savings), 0) AS saved
       FROM query_log WHERE account_id = $1 AND created_at >= $2 GROUP BY 1`,
    [accountId, start],
  );
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(start.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    const r = byDay.get(day);
    return { day, queries: Number(r?.queries ?? 0), saved: Number(r?.saved ?? 0) };
  });
};

export const distinctWarehouses = async (db: Queryable, accountId: string): Promise<string[]> => {
  const { rows } = await db.query<{ warehouse: string }>(
    'SELECT DISTINCT warehouse FROM query_log WHERE account_id = $1 ORDER BY warehouse',
    [accountId],
  );
  return rows.map((r) => r.warehouse);
};
