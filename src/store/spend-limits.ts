import type { Queryable } from './db.ts';
import { KEY_CHANGES_CHANNEL, LIMITS_CHANGE } from './key-changes.ts';

/** Limits of an account (`keyId` '') or of one API key; `null`: no limit. */
export type SpendLimits = {
  maxUsdPerQuery: number | null;
  maxBytesPerQuery: number | null;
  usdPerDay: number | null;
  usdPerMonth: number | null;
  updatedAt: Date | null;
};

export const NO_LIMITS: SpendLimits = {
  maxUsdPerQuery: null,
  maxBytesPerQuery: null,
  usdPerDay: null,
  usdPerMonth: null,
  updatedAt: null,
};

type Row = {
  key_id: string;
  max_usd_per_query: number | null;
  max_bytes_per_query: string | number | null;
  usd_per_day: number | null;
  usd_per_month: number | null;
  updated_at: Date | string;
};
const num = (v: string | number | null): number | null => (v === null ? null : Number(v));
const toLimits = (r: Row): SpendLimits => ({
  maxUsdPerQuery: num(r.max_usd_per_query),
  maxBytesPerQuery: num(r.max_bytes_per_query),
  usdPerDay: num(r.usd_per_day),
  usdPerMonth: num(r.usd_per_month),
  updatedAt: new Date(r.updated_at),
});
const COLUMNS = 'key_id, max_usd_per_query, max_bytes_per_query, usd_per_day, usd_per_month, updated_at';

/** The account's own limits and, with `keyId`, the key's, in one round trip. */
export const readSpendLimits = async (
  db: Queryable,
  accountId: string,
  keyId?: string,
): Promise<{ account: SpendLimits; key: SpendLimits }> => {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM spend_limits WHERE account_id = $1 AND key_id IN ('', $2)`,
    [accountId, keyId ?? ''],
  );
  const of = (k: string): SpendLimits => {
    const r = rows.find((x) => x.key_id === k);
    return r ? toLimits(r) : NO_LIMITS;
  };
  return { account: of(''), key: keyId === undefined ? NO_LIMITS : of(keyId) };
};

/** Replaces the limits of the account (`keyId` '') or of one of its keys. */
export const writeSpendLimits = async (
  db: Queryable,
  accountId: string,
  keyId: string,
  l: Omit<SpendLimits, 'updatedAt'>,
): Promise<SpendLimits> => {
  // Announced in the same statement (delivered on commit) to every process caching limits (guardrails.ts).
  const { rows } = await db.query<Row & { n: unknown }>(
    `WITH w AS (
       INSERT INTO spend_limits (account_id, key_id, max_usd_per_query, max_bytes_per_query, usd_per_day, usd_per_month)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account_id, key_id) DO UPDATE SET max_usd_per_query = EXCLUDED.max_usd_per_query,
         max_bytes_per_query = EXCLUDED.max_bytes_per_query, usd_per_day = EXCLUDED.usd_per_day,
         usd_per_month = EXCLUDED.usd_per_month, updated_at = now()
       RETURNING ${COLUMNS})
     SELECT w.*, pg_notify('${KEY_CHANGES_CHANNEL}', '${LIMITS_CHANGE}' || $1) AS n FROM w`,
    [accountId, keyId, l.maxUsdPerQuery, l.maxBytesPerQuery, l.usdPerDay, l.usdPerMonth],
  );
  return toLimits(rows[0] as Row);
};
