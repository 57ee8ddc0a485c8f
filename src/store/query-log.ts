import type { Queryable } from './db.ts';
import { addSpendSql, counterRecordset } from './spend-counters.ts';
import type { SpendCounter } from './spend-counters.ts';

export type QueryLogEntry = {
  accountId: string;
  keyId: string;
  traceId: string;
  warehouse: string;
  originalSql: string;
  rewrittenSql: string | null;
  rulesApplied: readonly string[];
  fallback: boolean;
  originalCost: number | null;
  optimizedCost: number | null;
  savings: number | null;
  bytesOriginal: number | null;
  bytesOptimized: number | null;
  costMethod: string | null;
  durationMs: number;
  rows: number | null;
  status: 'ok' | 'error';
  errorCode: string | null;
  /** A failure's message as the client got it (query-failed: the warehouse's words); migration 009. */
  errorDetail?: string | null;
};

export type QueryLogRecord = QueryLogEntry & { id: string; createdAt: Date };

const COLUMNS = `account_id, key_id, trace_id, warehouse, original_sql, rewritten_sql, rules_applied, fallback,
  original_cost, optimized_cost, savings, bytes_original, bytes_optimized, cost_method, duration_ms, rows, status,
  error_code`;
const VALUES = '$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18';
const params = (e: QueryLogEntry): unknown[] => [
  e.accountId,
  e.keyId,
  e.traceId,
  e.warehouse,
  e.originalSql,
  e.rewrittenSql,
  JSON.stringify(e.rulesApplied),
  e.fallback,
  e.originalCost,
  e.optimizedCost,
  e.savings,
  e.bytesOriginal,
  e.bytesOptimized,
  e.costMethod,
  e.durationMs,
  e.rows,
  e.status,
  e.errorCode,
];

/** Writes one entry; returns its id. */
export const insertQueryLog = async (db: Queryable, e: QueryLogEntry): Promise<string> =>
  (await recordQuery(db, e, null)).id;

/** A webhook event to write with a query's record (the outbox): its id (`webhook-id`), type and exact body. */
export type LoggedEvent = { id: string; type: string; payload: string };

/**
 * What a query that reserved nothing (no budget applies to it) adds to its spend counters: written in the
 * statement of its record (`recordQuery`) instead of a reservation and a settlement of their own.
 */
export type SpendAddition = { counters: readonly SpendCounter[]; usd: number; savingsUsd: number };

/**
 * Writes one entry and, with `event`, the webhook event for it when the entry's account has an enabled
 * endpoint (nothing when it has none), and with `spend`, its cost and savings added to its spend counters —
 * in ONE statement (data-modifying CTEs), so it is atomic by itself: the event and the spend exist exactly when
 * the record does, and it takes one round trip to the store (no BEGIN/COMMIT).
 * The event's deliveries, one per endpoint, are written by the dispatcher (`fanOutEvents`), so the
 * statement costs the same for one endpoint or ten. Returns the record's id and whether an event was written.
 */
export const recordQuery = async (
  db: Queryable,
  e: QueryLogEntry,
  event: LoggedEvent | null,
  spend?: SpendAddition,
): Promise<{ id: string; evented: boolean }> => {
  if (event === null && spend === undefined) {
    // A failure's message goes in the same statement (no event is written for a failure).
    const detail = e.errorDetail ?? null;
    const { rows } = await db.query<{ id: string | number }>(
      detail === null
        ? `INSERT INTO query_log (${COLUMNS}) VALUES (${VALUES}) RETURNING id`
        : `INSERT INTO query_log (${COLUMNS}, error_detail) VALUES (${VALUES}, $19) RETURNING id`,
      detail === null ? params(e) : [...params(e), detail.slice(0, 4000)],
    );
    return { id: String(rows[0]?.id), evented: false };
  }
  const values = params(e);
  const ctes = [`log AS (INSERT INTO query_log (${COLUMNS}) VALUES (${VALUES}) RETURNING id, account_id)`];
  if (spend !== undefined && spend.counters.length > 0) {
    const p = values.push(counterRecordset(spend.counters), spend.usd, spend.savingsUsd);
    ctes.push(`sp AS (${addSpendSql(`$${p - 2}`, `$${p - 1}`, `$${p}`)} RETURNING 1)`);
  }
  if (event !== null) {
    const p = values.push(event.id, event.type, event.payload);
    ctes.push(`ev AS (
       INSERT INTO webhook_events (id, account_id, type, payload, query_log_id, fanned_out)
       SELECT $${p - 2}, log.account_id, $${p - 1}, $${p}, log.id, false FROM log
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE account_id = log.account_id AND enabled)
       RETURNING id)`);
  }
  const { rows } = await db.query<{ id: string | number; evented: boolean }>(
    `WITH ${ctes.join(',\n     ')}
     SELECT (SELECT id FROM log) AS id, ${event !== null ? 'EXISTS (SELECT 1 FROM ev)' : 'false'} AS evented`,
    values,
  );
  return { id: String(rows[0]?.id), evented: rows[0]?.evented === true };
};

type Row = {
  id: string | number;
  account_id: string;
  key_id: string;
  trace_id: string;
  warehouse: string;
  original_sql: string;
  rewritten_sql: string | null;
  rules_applied: string[] | string;
  fallback: boolean;
  original_cost: number | null;
  optimized_cost: number | null;
  savings: number | null;
  bytes_original: string | number | null;
  bytes_optimized: string | number | null;
  cost_method: string | null;
  duration_ms: number;
  rows: string | number | null;
  status: 'ok' | 'error';
  error_code: string | null;
  created_at: Date | string;
};
const n = (v: string | number | null): number | null => (v === null ? null : Number(v));
export const toQueryLogRecord = (r: Row): QueryLogRecord => ({
  id: String(r.id),
  accountId: r.account_id,
  keyId: r.key_id,
  traceId: r.trace_id,
  warehouse: r.warehouse,
  originalSql: r.original_sql,
  rewrittenSql: r.rewritten_sql,
  rulesApplied:
    typeof r.rules_applied === 'string' ? (JSON.parse(r.rules_applied) as string[]) : r.rules_applied,
  fallback: r.fallback,
  originalCost: r.original_cost,
  optimizedCost: r.optimized_cost,
  savings: r.savings,
  bytesOriginal: n(r.bytes_original),
  bytesOptimized: n(r.bytes_optimized),
  costMethod: r.cost_method,
  durationMs: r.duration_ms,
  rows: n(r.rows),
  status: r.status,
  errorCode: r.error_code,
  createdAt: new Date(r.created_at),
});

export const listQueryLog = async (
  db: Queryable,
  accountId: string,
  limit = 50,
  offset = 0,
): Promise<QueryLogRecord[]> => {
  const { rows } = await db.query<Row>(
    'SELECT * FROM query_log WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3',
    [accountId, limit, offset],
  );
  return rows.map(toQueryLogRecord);
};
