import type { Queryable } from './db.ts';

/**
 * The dashboard's savings figures for one account, so a reader sees what sqlgate did: bytes and percent
 * next to dollars, the outcome of every query (rewritten / not rewritten / fell back / failed), cumulative
 * savings over time, and savings per rule that add up to the total.
 */
export type SavingsSummary = {
  queries: number;
  original: number;
  optimized: number;
  saved: number;
  bytesOriginal: number;
  bytesOptimized: number;
  /** Completed queries that a rule changed and that ran rewritten. */
  rewritten: number;
  /** Completed queries no rule changed. */
  notRewritten: number;
  /** Completed queries whose rewrite was skipped (time budget, an error): the original ran. */
  fellBack: number;
  failed: number;
};

type SummaryRow = Record<keyof SavingsSummary, string | number | null>;

export const savingsSummary = async (db: Queryable, accountId: string): Promise<SavingsSummary> => {
  const { rows } = await db.query<SummaryRow>(
    `SELECT count(*) AS queries,
            coalesce(sum(original_cost), 0) AS original, coalesce(sum(optimized_cost), 0) AS optimized,
            coalesce(sum(savings), 0) AS saved,
            coalesce(sum(bytes_original), 0) AS "bytesOriginal",
            coalesce(sum(bytes_optimized), 0) AS "bytesOptimized",
            count(*) FILTER (WHERE status = 'ok' AND NOT fallback AND jsonb_array_length(rules_applied) > 0) AS rewritten,
            count(*) FILTER (WHERE status = 'ok' AND NOT fallback AND jsonb_array_length(rules_applied) = 0) AS "notRewritten",
            count(*) FILTER (WHERE status = 'ok' AND fallback) AS "fellBack",
            count(*) FILTER (WHERE status <> 'ok') AS failed
       FROM query_log WHERE account_id = $1`,
    [accountId],
  );
  const r = rows[0];
  const n = (k: keyof SavingsSummary): number => Number(r?.[k] ?? 0);
  return {
    queries: n('queries'),
    original: n('original'),
    optimized: n('optimized'),
    saved: n('saved'),
    bytesOriginal: n('bytesOriginal'),
    bytesOptimized: n('bytesOptimized'),
    rewritten: n('rewritten'),
    notRewritten: n('notRewritten'),
    fellBack: n('fellBack'),
    failed: n('failed'),
  };
};

/**
 * Savings per rule, each query's saving attributed once: split equally among the rules that changed it
 * (which rule saved what cannot be told apart). A saving of a query without rules (none should have one) is
 * listed as `rule: null`. The shares add up to the account's total savings.
 */
export const savingsByRule = async (
  db: Queryable,
  accountId: string,
): Promise<Array<{ rule: string | null; queries: number; saved: number }>> => {
  const { rows } = await db.query<{ rule: string | null; queries: string | number; saved: number | null }>(
    `SELECT r.rule AS rule, count(*) AS queries,
            coalesce(sum(q.savings / greatest(jsonb_array_length(q.rules_applied), 1)), 0) AS saved
       FROM query_log q
       LEFT JOIN LATERAL jsonb_array_elements_text(q.rules_applied) AS r(rule) ON true
      WHERE q.account_id = $1 AND (r.rule IS NOT NULL OR coalesce(q.savings, 0) <> 0)
      GROUP BY r.rule ORDER BY saved DESC, queries DESC, rule`,
    [accountId],
  );
  return rows.map((r) => ({ rule: r.rule, queries: Number(r.queries), saved: Number(r.saved ?? 0) }));
};

const DAY_MS = 86_400_000;

/** Cumulative USD saved at the end of each of the last `days` UTC days (savings before them included). */
export const cumulativeSavings = async (
  db: Queryable,
  accountId: string,
  days: number,
  now: Date = new Date(),
): Promise<Array<{ day: string; saved: number }>> => {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = new Date(today - (days - 1) * DAY_MS);
  const { rows } = await db.query<{ day: string | null; saved: number | null }>(
    `SELECT CASE WHEN created_at < $2 THEN NULL ELSE to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') END AS day,
            coalesce(sum(savings), 0) AS saved
       FROM query_log WHERE account_id = $1 GROUP BY 1`,
    [accountId, start],
  );
  let running = Number(rows.find((r) => r.day === null)?.saved ?? 0);
  const byDay = new Map(rows.filter((r) => r.day !== null).map((r) => [r.day, Number(r.saved ?? 0)]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(start.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    running += byDay.get(day) ?? 0;
    return { day, saved: running };
  });
};

/** The failure message of an entry (query-failed: the warehouse's words), when one was recorded. */
export const errorDetailOf = async (db: Queryable, id: string): Promise<string | undefined> => {
  const { rows } = await db.query<{ error_detail: string | null }>(
    'SELECT error_detail FROM query_log WHERE id = $1',
    [id],
  );
  return rows[0]?.error_detail ?? undefined;
};
