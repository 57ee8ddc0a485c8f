import { KEY_CHANGES_CHANNEL } from './key-changes.ts';
import type { Queryable } from './db.ts';

export type ApiKeyRecord = {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
};

type Row = {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
};
const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));
const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  prefix: r.prefix,
  createdAt: new Date(r.created_at),
  lastUsedAt: date(r.last_used_at),
  expiresAt: date(r.expires_at),
  revokedAt: date(r.revoked_at),
});
const COLUMNS = 'id, account_id, name, prefix, created_at, last_used_at, expires_at, revoked_at';

export const insertApiKey = async (
  db: Queryable,
  k: { id: string; accountId: string; name: string; prefix: string; hash: string; expiresAt: Date | null },
): Promise<ApiKeyRecord> => {
  const { rows } = await db.query<Row>(
    `INSERT INTO api_keys (id, account_id, name, prefix, hash, expires_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [k.id, k.accountId, k.name, k.prefix, k.hash, k.expiresAt],
  );
  return toRecord(rows[0] as Row);
};

export const findApiKeyByHash = async (db: Queryable, hash: string): Promise<ApiKeyRecord | undefined> => {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM api_keys WHERE hash = $1`, [hash]);
  return rows[0] ? toRecord(rows[0]) : undefined;
};

export const listApiKeys = async (db: Queryable, accountId?: string): Promise<ApiKeyRecord[]> => {
  const { rows } =
    accountId === undefined
      ? await db.query<Row>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`)
      : await db.query<Row>(`SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`, [
          accountId,
        ]);
  return rows.map(toRecord);
};

/** Revokes a key (of that account, when given); false when there is no such live key. */
export const revokeApiKey = async (db: Queryable, id: string, accountId?: string): Promise<boolean> => {
  // Announced in the same statement (delivered on commit) to every process listening (key-changes.ts).
  const { rows } = await db.query<{ id: string }>(
    `WITH r AS (
       UPDATE api_keys SET revoked_at = now()
       WHERE id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR account_id = $2) RETURNING id)
     SELECT id, pg_notify('${KEY_CHANGES_CHANNEL}', id) FROM r`,
    [id, accountId ?? null],
  );
  return rows.length > 0;
};

/**
 * The key with this hash (undefined: none), read in the same statement that records its use — at most once a
 * minute per key, and only when the key is live at `now` (not revoked, not expired) — so that authenticating
 * a request is one round trip to the store. The record returned is as it was before that write.
 */
/** A key's use is due to be written: at most once a minute (the dashboard shows minutes). */
const USE_DUE = "(api_keys.last_used_at IS NULL OR api_keys.last_used_at < now() - interval '1 minute')";

export const findApiKeyForUse = async (
  db: Queryable,
  hash: string,
  now: Date,
): Promise<ApiKeyRecord | undefined> => {
  const { rows } = await db.query<Row>(
    `WITH k AS (SELECT ${COLUMNS} FROM api_keys WHERE hash = $1),
     used AS (
       UPDATE api_keys SET last_used_at = now() FROM k
       WHERE api_keys.id = k.id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)
         AND ${USE_DUE})
     SELECT * FROM k`,
    [hash, now],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
};

/** Records a use of a live key (as `findApiKeyForUse` does), at most once a minute. */
export const recordApiKeyUse = async (db: Queryable, id: string): Promise<void> => {
  await db.query(
    `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND revoked_at IS NULL AND ${USE_DUE}`,
    [id],
  );
};
