import type { Queryable } from './db.ts';

/** A webhook endpoint as stored; the secrets stay in the store layer and the dispatcher. */
export type EndpointRecord = {
  id: string;
  accountId: string;
  url: string;
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

type Row = {
  id: string;
  account_id: string;
  url: string;
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
};
const COLUMNS =
  'id, account_id, url, description, enabled, disabled_reason, failing_since, created_at, updated_at';
const toRecord = (r: Row): EndpointRecord => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  description: r.description,
  enabled: r.enabled,
  disabledReason: r.disabled_reason,
  failingSince: r.failing_since === null ? null : new Date(r.failing_since),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export const insertEndpoint = async (
  db: Queryable,
  e: { id: string; accountId: string; url: string; description: string; secret: string },
): Promise<EndpointRecord> => {
  const { rows } = await db.query<Row>(
    `INSERT INTO webhook_endpoints (id, account_id, url, description, secret) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${COLUMNS}`,
    [e.id, e.accountId, e.url, e.description, e.secret],
  );
  return toRecord(rows[0] as Row);
};

export const listEndpoints = async (db: Queryable, accountId: string): Promise<EndpointRecord[]> => {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows.map(toRecord);
};

/** The endpoint, only when it belongs to the account (another account's endpoint does not exist for it). */
export const findEndpoint = async (
  db: Queryable,
  accountId: string,
  id: string,
): Promise<EndpointRecord | undefined> => {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
};

/** Pending deliveries of a disabled endpoint are cancelled: they can be redelivered once it is enabled. */
const cancelPending = async (db: Queryable, endpointId: string, why: string): Promise<void> => {
  await db.query(
    `UPDATE webhook_deliveries SET status = 'canceled', next_attempt_at = NULL, last_error = $2, updated_at = now()
     WHERE endpoint_id = $1 AND status = 'pending'`,
    [endpointId, why],
  );
};

export const updateEndpoint = async (
  db: Queryable,
  accountId: string,
  id: string,
  patch: { url?: string; description?: string; enabled?: boolean },
): Promise<EndpointRecord | undefined> => {
  const enabled = patch.enabled ?? null;
  const { rows } = await db.query<Row>(
    `UPDATE webhook_endpoints SET
       url = COALESCE($3, url),
       description = COALESCE($4, description),
       enabled = COALESCE($5, enabled),
       disabled_reason = CASE WHEN $5::boolean IS NULL THEN disabled_reason
                              WHEN $5::boolean THEN NULL ELSE 'disabled by the account' END,
       failing_since = CASE WHEN $5::boolean THEN NULL ELSE failing_since END,
       updated_at = now()
     WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
    [id, accountId, patch.url ?? null, patch.description ?? null, enabled],
  );
  if (rows[0] && enabled === false) await cancelPending(db, id, 'endpoint disabled');
  return rows[0] ? toRecord(rows[0]) : undefined;
};

export const deleteEndpoint = async (db: Queryable, accountId: string, id: string): Promise<boolean> => {
  const { rows } = await db.query<{ id: string }>(
    'DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2 RETURNING id',
    [id, accountId],
  );
  return rows.length > 0;
};

/** The new secret signs from now on; the previous one keeps signing too until `overlapMs` has passed. */
export const rotateEndpointSecret = async (
  db: Queryable,
  accountId: string,
  id: string,
  secret: string,
  overlapMs: number,
): Promise<EndpointRecord | undefined> => {
  const { rows } = await db.query<Row>(
    `UPDATE webhook_endpoints SET previous_secret = secret, secret = $3,
       previous_secret_expires_at = now() + $4::double precision * interval '1 millisecond', updated_at = now()
     WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
    [id, accountId, secret, overlapMs],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
};

/** Disabled by the dispatcher (410 Gone, or failing past the horizon); the reason is shown to the account. */
export const disableEndpoint = async (db: Queryable, id: string, reason: string): Promise<void> => {
  await db.query(
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, updated_at = now() WHERE id = $1 AND enabled`,
    [id, reason],
  );
  await cancelPending(db, id, `endpoint disabled: ${reason}`);
};

/** Records a failed attempt; returns how long (ms) the endpoint has been failing without a success. */
export const markEndpointFailing = async (db: Queryable, id: string): Promise<number> => {
  const { rows } = await db.query<{ failing_ms: number | string | null }>(
    `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now()) WHERE id = $1
     RETURNING extract(epoch FROM now() - failing_since) * 1000 AS failing_ms`,
    [id],
  );
  return Number(rows[0]?.failing_ms ?? 0);
};
