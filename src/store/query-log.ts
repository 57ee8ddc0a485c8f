import type { Queryable } from './db.ts';
import { addSpendBatchSql, addSpendSql, counterRecordset } from './spend-counters.ts';
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

/** One query's record, as `recordQuery` takes it. */
export type QueryRecord = {
  readonly entry: QueryLogEntry;
  readonly event: LoggedEvent | null;
  readonly spend?: SpendAddition | undefined;
};

/** The counters a batch adds to: each counter once, with the sum of what its queries add. */
const spendRows = (records: readonly QueryRecord[]): string | null => {
  const byCounter = new Map<
    string,
    {
      scope: string;
      period: string;
      starts_at: string;
      account_id: string;
      cap: number | null;
      usd: number;
      savings: number;
      queries: number;
    }
  >();
  for (const { spend } of records) {
    if (spend === undefined) continue;
    for (const c of spend.counters) {
      // Keyed by the instant (no date text per record: the batch's counters are few, its records many).
      const k = `${c.scope}\u0000${c.period}\u0000${c.startsAt.getTime()}`;
      const row = byCounter.get(k);
      if (row === undefined)
        byCounter.set(k, {
          scope: c.scope,
          period: c.period,
          starts_at: c.startsAt.toISOString(),
          account_id: c.accountId,
          cap: c.capUsd,
          usd: spend.usd,
          savings: spend.savingsUsd,
          queries: 1,
        });
      else {
        row.cap = c.capUsd;
        row.usd += spend.usd;
        row.savings += spend.savingsUsd;
        row.queries++;
      }
    }
  }
  return byCounter.size === 0 ? null : JSON.stringify([...byCounter.values()]);
};

/**
 * `recordQuery` for several queries in ONE statement: every record, the events of those whose account has an
 * enabled endpoint, and their spend summed per counter (each counter row locked and updated once, however
 * many queries of the account the batch holds). Atomic as a whole: all of it is written, or nothing. Ids are
 * drawn from the table's sequence first, so that each event names its own record. Returns, in the order of
 * `records`, each record's id and whether its event was written.
 */
export const recordQueries = async (
  db: Queryable,
  records: readonly QueryRecord[],
): Promise<Array<{ id: string; evented: boolean }>> => {
  const input = JSON.stringify(
    records.map(({ entry: e, event }, i) => ({
      i,
      account_id: e.accountId,
      key_id: e.keyId,
      trace_id: e.traceId,
      warehouse: e.warehouse,
      original_sql: e.originalSql,
      rewritten_sql: e.rewrittenSql,
      rules_applied: e.rulesApplied,
      fallback: e.fallback,
      original_cost: e.originalCost,
      optimized_cost: e.optimizedCost,
      savings: e.savings,
      bytes_original: e.bytesOriginal,
      bytes_optimized: e.bytesOptimized,
      cost_method: e.costMethod,
      duration_ms: e.durationMs,
      rows: e.rows,
      status: e.status,
      error_code: e.errorCode,
      error_detail: e.errorDetail?.slice(0, 4000) ?? null,
      event_id: event?.id ?? null,
      event_type: event?.type ?? null,
      event_payload: event?.payload ?? null,
    })),
  );
  const spend = spendRows(records);
  const { rows } = await db.query<{ i: number; id: string | number; evented: boolean }>(
    `WITH x AS MATERIALIZED (
       SELECT r.*, nextval(pg_get_serial_sequence('query_log', 'id')) AS id
       FROM json_to_recordset($1::json) AS r(i int, account_id text, key_id text, trace_id text, warehouse text,
         original_sql text, rewritten_sql text, rules_applied jsonb, fallback boolean, original_cost float8,
         optimized_cost float8, savings float8, bytes_original bigint, bytes_optimized bigint, cost_method text,
         duration_ms float8, rows bigint, status text, error_code text, error_detail text, event_id text,
         event_type text, event_payload text)
       ORDER BY r.i),
     log AS (INSERT INTO query_log (id, ${COLUMNS}, error_detail)
       SELECT id, account_id, key_id, trace_id, warehouse, original_sql, rewritten_sql, rules_applied, fallback,
         original_cost, optimized_cost, savings, bytes_original, bytes_optimized, cost_method, duration_ms, rows,
         status, error_code, error_detail FROM x ORDER BY i
       RETURNING id, account_id),
     ev AS (
       INSERT INTO webhook_events (id, account_id, type, payload, query_log_id, fanned_out)
       SELECT x.event_id, log.account_id, x.event_type, x.event_payload, log.id, false FROM log JOIN x ON x.id = log.id
       WHERE x.event_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE account_id = log.account_id AND enabled)
       RETURNING id)${spend === null ? '' : `,\n     sp AS (${addSpendBatchSql('$2')} RETURNING 1)`}
     SELECT x.i, x.id, (x.event_id IS NOT NULL AND x.event_id IN (SELECT id FROM ev)) AS evented FROM x`,
    spend === null ? [input] : [input, spend],
  );
  const out = new Array<{ id: string; evented: boolean }>(records.length);
  for (const r of rows) out[Number(r.i)] = { id: String(r.id), evented: r.evented === true };
  return out;
};

/**
 * A statement the server refused (it has a SQLSTATE and a severity): it did not commit, so its records may be
 * written again. A connection lost before the answer is not one: the statement may have committed.
 */
const refusedByServer = (e: unknown): boolean => {
  if (typeof e !== 'object' || e === null) return false;
  const { code, severity } = e as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
};

/** Writes query records through `record`, several per statement when they arrive together (group commit). */
export type QueryRecorder = {
  /** Settles once the record (with its event and spend) has committed: a caller may answer only then. */
  record(r: QueryRecord): Promise<{ id: string; evented: boolean }>;
};

/**
 * Group commit of query records. A record that finds the store idle is written at the next turn of the event
 * loop, with whatever other records arrived in that turn; records that arrive while `maxInFlight` statements
 * (by default one) are on their way wait and go together in the next one (at most `maxBatch` per statement).
 * One at a time makes fewer, larger statements: under load, less work per record for this process (one
 * statement's protocol and JSON instead of several) and for the store (planning, commit); bench/scale-out
 * run 9 measured more requests/s and a lower p50 than with two. Each caller's
 * promise settles only when the statement holding its record has committed, so nothing is answered before
 * it is durable. Under concurrent queries of one account this is what keeps the store from serialising them:
 * each statement locks the account's spend counters until it commits, and one statement for fifty queries
 * takes those locks once instead of fifty times in a row.
 *
 * A lone record is written by `recordQuery` (the statement it always had). When the server refuses a batch
 * (nothing of it committed), each of its records is written again on its own, so that one bad record fails
 * only its own query; any other failure (the connection lost: it may have committed) fails the whole batch.
 */
export const createQueryRecorder = (
  db: Queryable,
  opts: { readonly maxBatch?: number; readonly maxInFlight?: number } = {},
): QueryRecorder => {
  const maxBatch = opts.maxBatch ?? 256;
  const maxInFlight = opts.maxInFlight ?? 1;
  type Waiting = QueryRecord & {
    resolve: (r: { id: string; evented: boolean }) => void;
    reject: (e: unknown) => void;
  };
  let queue: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const writeAlone = (w: Waiting): Promise<void> =>
    recordQuery(db, w.entry, w.event, w.spend).then(w.resolve, w.reject);

  const write = async (batch: Waiting[]): Promise<void> => {
    if (batch.length === 1) return writeAlone(batch[0]!);
    let written: Array<{ id: string; evented: boolean }>;
    try {
      written = await recordQueries(db, batch);
    } catch (e) {
      if (!refusedByServer(e)) {
        for (const w of batch) w.reject(e);
        return;
      }
      await Promise.all(batch.map(writeAlone));
      return;
    }
    batch.forEach((w, i) => {
      const one = written[i];
      if (one) w.resolve(one);
      else w.reject(new Error('The store answered the batch of query records without this record.'));
    });
  };

  const flush = (): void => {
    scheduled = false;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      inFlight++;
      void write(batch).finally(() => {
        inFlight--;
        if (queue.length > 0) schedule();
      });
    }
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  return {
    record: (r) =>
      new Promise((resolve, reject) => {
        queue.push({ ...r, resolve, reject });
        if (inFlight < maxInFlight) schedule();
      }),
  };
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
