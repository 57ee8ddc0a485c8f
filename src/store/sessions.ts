import type { Queryable } from './db.ts';

export type SessionRecord = { accountId: string; csrfToken: string; expiresAt: Date };

export const insertSession = async (
  db: Queryable,
  s: { tokenHash: string; accountId: string; csrfToken: string; expiresAt: Date },
): Promise<void> => {
  await db.query(
    'INSERT INTO dashboard_sessions (token_hash, account_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)',
    [s.tokenHash, s.accountId, s.csrfToken, s.expiresAt],
  );
};

/** The live session with that token hash; expired ones are not returned. */
export const findSession = async (db: Queryable, tokenHash: string): Promise<SessionRecord | undefined> => {
  const { rows } = await db.query<{ account_id: string; csrf_token: string; expires_at: Date | string }>(
    'SELECT account_id, csrf_token, expires_at FROM dashboard_sessions WHERE token_hash = $1 AND expires_at > now()',
    [tokenHash],
  );
  const r = rows[0];
  return r
    ? { accountId: r.account_id, csrfToken: r.csrf_token, expiresAt: new Date(r.expires_at) }
    : undefined;
};

export const deleteSession = async (db: Queryable, tokenHash: string): Promise<void> => {
  await db.query('DELETE FROM dashboard_sessions WHERE token_hash = $1', [tokenHash]);
};

/** Expired sessions are useless; removing them on sign-in keeps the table small without a job. */
export const deleteExpiredSessions = async (db: Queryable): Promise<void> => {
  await db.query('DELETE FROM dashboard_sessions WHERE expires_at <= now()');
};

/** Records a failure, and drops those past the window: only the window's failures are ever counted. */
export const recordLoginFailure = async (
  db: Queryable,
  email: string,
  ip: string,
  windowMs: number,
): Promise<void> => {
  await db.query('INSERT INTO login_failures (email, ip) VALUES (lower($1), $2)', [email, ip]);
  await db.query('DELETE FROM login_failures WHERE created_at < $1', [new Date(Date.now() - windowMs)]);
};

/** Failures in the window for that email and for that IP, counted separately. */
export const countLoginFailures = async (
  db: Queryable,
  email: string,
  ip: string,
  windowMs: number,
): Promise<{ byEmail: number; byIp: number }> => {
  const since = new Date(Date.now() - windowMs);
  const { rows } = await db.query<{ by_email: string | number; by_ip: string | number }>(
    `SELECT count(*) FILTER (WHERE email = lower($1)) AS by_email, count(*) FILTER (WHERE ip = $2) AS by_ip
       FROM login_failures WHERE created_at > $3 AND (email = lower($1) OR ip = $2)`,
    [email, ip, since],
  );
  return { byEmail: Number(rows[0]?.by_email ?? 0), byIp: Number(rows[0]?.by_ip ?? 0) };
};

export const clearLoginFailures = async (db: Queryable, email: string): Promise<void> => {
  await db.query('DELETE FROM login_failures WHERE email = lower($1)', [email]);
};
