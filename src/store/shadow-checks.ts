import type { Queryable } from './db.ts';

export type ShadowOutcome = 'match' | 'mismatch' | 'inconclusive' | 'error';

export type ShadowCheck = {
  queryLogId: string;
  outcome: ShadowOutcome;
  shapeDigest: string;
  rules: string[];
  originalRows: number | null;
  rewrittenRows: number | null;
  detail: string | null;
};

export type ShadowCheckRecord = ShadowCheck & { checkedAt: Date };

export type QuarantineEntry = {
  shapeDigest: string;
  rule: string;
  warehouse: string;
  queryLogId: string | null;
  originalSql: string;
  rewrittenSql: string;
  createdAt: Date;
};

/** Records a check's outcome and, for a mismatch, quarantines its rules for the shape: one statement. */
export const recordShadowCheck = async (
  db: Queryable,
  c: ShadowCheck,
  quarantine?: { warehouse: string; originalSql: string; rewrittenSql: string },
): Promise<void> => {
  const check = `INSERT INTO shadow_checks (query_log_id, outcome, shape_digest, rules, original_rows, rewritten_rows, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (query_log_id) DO NOTHING`;
  const params = [
    c.queryLogId,
    c.outcome,
    c.shapeDigest,
    JSON.stringify(c.rules),
    c.originalRows,
    c.rewrittenRows,
    c.detail,
  ];
  if (!quarantine) {
    await db.query(check, params);
    return;
  }
  await db.query(
    `WITH c AS (${check} RETURNING query_log_id)
     INSERT INTO rule_quarantine (shape_digest, rule, warehouse, query_log_id, original_sql, rewritten_sql)
     SELECT $3, r, $8, $1, $9, $10 FROM jsonb_array_elements_text($4::jsonb) AS r
     ON CONFLICT (shape_digest, rule) DO NOTHING`,
    [...params, quarantine.warehouse, quarantine.originalSql, quarantine.rewrittenSql],
  );
};

type CheckRow = {
  query_log_id: string | number;
  outcome: ShadowOutcome;
  shape_digest: string;
  rules: string[] | string;
  original_rows: string | number | null;
  rewritten_rows: string | number | null;
  detail: string | null;
  checked_at: Date | string;
};
const n = (v: string | number | null): number | null => (v === null ? null : Number(v));

export const findShadowCheck = async (
  db: Queryable,
  queryLogId: string,
): Promise<ShadowCheckRecord | undefined> => {
  const { rows } = await db.query<CheckRow>('SELECT * FROM shadow_checks WHERE query_log_id = $1', [
    queryLogId,
  ]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    queryLogId: String(r.query_log_id),
    outcome: r.outcome,
    shapeDigest: r.shape_digest,
    rules: typeof r.rules === 'string' ? (JSON.parse(r.rules) as string[]) : r.rules,
    originalRows: n(r.original_rows),
    rewrittenRows: n(r.rewritten_rows),
    detail: r.detail,
    checkedAt: new Date(r.checked_at),
  };
};

type QuarantineRow = {
  shape_digest: string;
  rule: string;
  warehouse: string;
  query_log_id: string | number | null;
  original_sql: string;
  rewritten_sql: string;
  created_at: Date | string;
};

export const listQuarantine = async (db: Queryable): Promise<QuarantineEntry[]> => {
  const { rows } = await db.query<QuarantineRow>(
    'SELECT * FROM rule_quarantine ORDER BY created_at, shape_digest, rule',
  );
  return rows.map((r) => ({
    shapeDigest: r.shape_digest,
    rule: r.rule,
    warehouse: r.warehouse,
    queryLogId: r.query_log_id === null ? null : String(r.query_log_id),
    originalSql: r.original_sql,
    rewrittenSql: r.rewritten_sql,
    createdAt: new Date(r.created_at),
  }));
};

/**
 * Lifts a quarantine: the rule for one shape, the rule for every shape (`shape` undefined), or every rule
 * of one shape (`rule` undefined). Returns how many entries were removed.
 */
export const deleteQuarantine = async (
  db: Queryable,
  which: { rule?: string; shape?: string },
): Promise<number> => {
  const { rows } = await db.query<{ n: string | number }>(
    `WITH d AS (DELETE FROM rule_quarantine
       WHERE ($1::text IS NULL OR rule = $1) AND ($2::text IS NULL OR shape_digest = $2) RETURNING 1)
     SELECT count(*) AS n FROM d`,
    [which.rule ?? null, which.shape ?? null],
  );
  return Number(rows[0]?.n ?? 0);
};
