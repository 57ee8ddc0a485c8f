import type { Queryable } from './db.ts';

export type SpendPeriod = 'day' | 'month';

/** One counter a query's spend goes to: its account's or its key's, for the current day or month. */
export type SpendCounter = {
  /** `a:<account id>` or `k:<key id>`. */
  readonly scope: string;
  readonly period: SpendPeriod;
  readonly startsAt: Date;
  readonly accountId: string;
  /** The budget of that scope and period; `null`: none (spend is still counted, for GET /usage). */
  readonly capUsd: number | null;
};

export type CounterState = {
  scope: string;
  period: SpendPeriod;
  startsAt: Date;
  usedUsd: number;
  savingsUsd: number;
  queries: number;
  capUsd: number | null;
  notifiedPct: number;
};

type Row = {
  scope: string;
  period: SpendPeriod;
  starts_at: Date | string;
  used_usd: number;
  savings_usd: number;
  queries: string | number;
  cap_usd: number | null;
  notified_pct: number;
};
const toState = (r: Row): CounterState => ({
  scope: r.scope,
  period: r.period,
  startsAt: new Date(r.starts_at),
  usedUsd: Number(r.used_usd),
  savingsUsd: Number(r.savings_usd),
  queries: Number(r.queries),
  capUsd: r.cap_usd === null ? null : Number(r.cap_usd),
  notifiedPct: Number(r.notified_pct),
});
const STATE = 'scope, period, starts_at, used_usd, savings_usd, queries, cap_usd, notified_pct';

export const counterRecordset = (counters: readonly SpendCounter[]): string =>
  JSON.stringify(
    counters.map((c) => ({
      scope: c.scope,
      period: c.period,
      starts_at: c.startsAt.toISOString(),
      account_id: c.accountId,
      cap: c.capUsd,
    })),
  );
/**
 * The one order in which every statement here locks counter rows, in SQL (byte order, whatever the database's
 * collation): a reservation (upsert) and a settlement (update) that lock rows in different orders deadlock on
 * a PostgreSQL server under concurrent queries of one account.
 */
const LOCK_ORDER = (t: string): string => `${t}.scope COLLATE "C", ${t}.period COLLATE "C", ${t}.starts_at`;
const RECORDSET = `jsonb_to_recordset($1::jsonb) AS x(scope text, period text, starts_at timestamptz, account_id text, cap float8)`;

/** SQLSTATE check_violation: a reservation went past a budget (constraint `spend_within_budget`). */
const isOverBudget = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23514';

/**
 * The statement that adds a query's cost (`usd`), its savings and one query to every counter (created when
 * absent), in the one lock order: for counters without a budget, which need no reservation (query-log.ts
 * writes it with the query's record). Parameters are SQL placeholders: the counters' recordset, usd, savings.
 */
export const addSpendSql = (counters: string, usd: string, savings: string): string =>
  `INSERT INTO spend_counters AS c (scope, period, starts_at, account_id, used_usd, savings_usd, cap_usd, queries)
   SELECT x.scope, x.period, x.starts_at, x.account_id, ${usd}::float8, ${savings}::float8, x.cap, 1
   FROM ${RECORDSET.replace('$1', counters)}
   ORDER BY ${LOCK_ORDER('x')}
   ON CONFLICT (scope, period, starts_at) DO UPDATE SET used_usd = c.used_usd + EXCLUDED.used_usd,
     savings_usd = c.savings_usd + EXCLUDED.savings_usd, cap_usd = EXCLUDED.cap_usd, queries = c.queries + 1,
     updated_at = now()`;

/**
 * `addSpendSql` for several queries at once (query-log.ts `recordQueries`): `rows` is the placeholder of a JSON
 * array of counters with what the queries of one batch add to each (`usd`, `savings`, `queries`), one element
 * per counter, locked in the one order.
 */
export const addSpendBatchSql = (rows: string): string =>
  `INSERT INTO spend_counters AS c (scope, period, starts_at, account_id, used_usd, savings_usd, cap_usd, queries)
   SELECT x.scope, x.period, x.starts_at, x.account_id, x.usd, x.savings, x.cap, x.queries
   FROM json_to_recordset(${rows}::json) AS x(scope text, period text, starts_at timestamptz, account_id text,
     cap float8, usd float8, savings float8, queries int)
   ORDER BY ${LOCK_ORDER('x')}
   ON CONFLICT (scope, period, starts_at) DO UPDATE SET used_usd = c.used_usd + EXCLUDED.used_usd,
     savings_usd = c.savings_usd + EXCLUDED.savings_usd, cap_usd = EXCLUDED.cap_usd,
     queries = c.queries + EXCLUDED.queries, updated_at = now()`;

/**
 * Adds `usd` to every counter in ONE statement, which fails as a whole (CHECK `spend_within_budget`) when any
 * counter would pass its budget: the row locks of the upsert serialize concurrent reservations on a PostgreSQL
 * server, and the embedded store runs one statement at a time, so no two requests can both take the last of a
 * budget. Returns false, with nothing written, when a budget would be passed.
 */
export const reserveSpend = async (
  db: Queryable,
  counters: readonly SpendCounter[],
  usd: number,
): Promise<boolean> => {
  if (counters.length === 0) return true;
  try {
    await db.query(
      `INSERT INTO spend_counters AS c (scope, period, starts_at, account_id, used_usd, cap_usd, queries)
       SELECT x.scope, x.period, x.starts_at, x.account_id, $2::float8, x.cap, 1 FROM ${RECORDSET}
       ORDER BY ${LOCK_ORDER('x')}
       ON CONFLICT (scope, period, starts_at) DO UPDATE SET used_usd = c.used_usd + EXCLUDED.used_usd,
         cap_usd = EXCLUDED.cap_usd, queries = c.queries + 1, updated_at = now()`,
      [counterRecordset(counters), usd],
    );
    return true;
  } catch (e) {
    if (isOverBudget(e)) return false;
    throw e;
  }
};

/**
 * Replaces a reservation by what the query cost (`actualUsd`; 0 when it did not run) and adds its savings.
 * Never fails on a budget: a query that cost more than its estimate is still counted (the cap follows).
 */
export const settleSpend = async (
  db: Queryable,
  counters: readonly SpendCounter[],
  reservedUsd: number,
  actualUsd: number,
  savingsUsd: number,
  /** -1 when the query did not run: it is not counted. */
  queriesDelta = 0,
): Promise<CounterState[]> => {
  if (counters.length === 0) return [];
  const delta = actualUsd - reservedUsd;
  const { rows } = await db.query<Row>(
    `WITH locked AS MATERIALIZED (
       SELECT l.scope, l.period, l.starts_at FROM spend_counters AS l JOIN ${RECORDSET}
         ON l.scope = x.scope AND l.period = x.period AND l.starts_at = x.starts_at
       ORDER BY ${LOCK_ORDER('l')} FOR UPDATE OF l)
     UPDATE spend_counters AS c SET used_usd = GREATEST(0, c.used_usd + $2::float8),
       savings_usd = c.savings_usd + $3::float8, queries = GREATEST(0, c.queries + $4::int),
       cap_usd = CASE WHEN c.cap_usd IS NULL THEN NULL ELSE GREATEST(c.cap_usd, c.used_usd + $2::float8) END,
       updated_at = now()
     FROM locked AS k WHERE c.scope = k.scope AND c.period = k.period AND c.starts_at = k.starts_at
     RETURNING c.scope, c.period, c.starts_at, c.used_usd, c.savings_usd, c.queries, c.cap_usd, c.notified_pct`,
    [counterRecordset(counters), delta, savingsUsd, queriesDelta],
  );
  return rows.map(toState);
};

/**
 * Marks the threshold `pct` announced for one counter and, in the same statement, writes its webhook event to
 * the outbox when the account has an enabled endpoint (the dispatcher fans it out). True only for the one
 * call that marked it: once per threshold per period, whatever the number of replicas.
 */
export const markThreshold = async (
  db: Queryable,
  c: { scope: string; period: SpendPeriod; startsAt: Date; accountId: string },
  pct: number,
  event: { id: string; type: string; payload: string },
): Promise<{ marked: boolean; evented: boolean }> => {
  const { rows } = await db.query<{ marked: boolean; evented: boolean }>(
    `WITH m AS (
       UPDATE spend_counters SET notified_pct = $4
       WHERE scope = $1 AND period = $2 AND starts_at = $3 AND notified_pct < $4 RETURNING account_id),
     ev AS (
       INSERT INTO webhook_events (id, account_id, type, payload, query_log_id, fanned_out)
       SELECT $5, m.account_id, $6, $7, NULL, false FROM m
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.account_id = m.account_id AND e.enabled)
       RETURNING id)
     SELECT EXISTS (SELECT 1 FROM m) AS marked, EXISTS (SELECT 1 FROM ev) AS evented`,
    [c.scope, c.period, c.startsAt.toISOString(), pct, event.id, event.type, event.payload],
  );
  return { marked: rows[0]?.marked === true, evented: rows[0]?.evented === true };
};

/** The counters of one account (its own and its keys') for the period starting at `startsAt`. */
export const readCounters = async (
  db: Queryable,
  accountId: string,
  period: SpendPeriod,
  startsAt: Date,
): Promise<CounterState[]> => {
  const { rows } = await db.query<Row>(
    `SELECT ${STATE} FROM spend_counters WHERE account_id = $1 AND period = $2 AND starts_at = $3 ORDER BY scope`,
    [accountId, period, startsAt.toISOString()],
  );
  return rows.map(toState);
};
